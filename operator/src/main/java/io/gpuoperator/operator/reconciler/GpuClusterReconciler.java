package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.api.v1alpha1.GPUClusterStatus;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.GpuClusterModel;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.OperandReadiness;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.operator.status.Verdict;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the DRA driver from the GPUCluster, as NVIDIA's newest operator does: the DeviceClasses, the
 * kubelet plugin DaemonSet and its RBAC ({@link GpuClusterModel}, the {@code dra-driver} operand's
 * rendering), owned by the GPUCluster so that deleting it removes them. GPU nodes get the {@code
 * nvidia.com/gpu.deploy.dra-driver} label the DaemonSet selects (a value already set, such as
 * {@code false}, is kept). The plugin pods wait for the driver on their node; the status stays
 * notReady (DriverNotReady) until every one runs. A ClusterPolicy and a GPUCluster cannot coexist:
 * with a ClusterPolicy present the GPUCluster changes nothing and reports the conflict.
 */
public class GpuClusterReconciler implements Reconciler<GPUCluster> {
  private static final Logger LOG = LoggerFactory.getLogger(GpuClusterReconciler.class);
  static final String NODES = "gc-nodes";
  static final String POLICIES = "gc-policies";
  static final String DAEMONSETS = "gc-daemonsets";

  /** The original's reason while the driver (and so the plugin) is not running on every node. */
  static final String DRIVER_NOT_READY = "DriverNotReady";

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final String kubernetesVersion;
  private final ResourceApiVersion resourceApi;
  private final EventRecorder events;

  private final SharedNodes sharedNodes;
  private volatile SharedNodes.Events<GPUCluster> nodes;
  private volatile InformerEventSource<ClusterPolicy, GPUCluster> policies;
  private volatile InformerEventSource<DaemonSet, GPUCluster> daemonSets;
  private volatile OperandApplier applier;

  /**
   * @param resourceApi the newest {@code resource.k8s.io} version the server serves (null: none,
   *     and the GPUCluster reports that DRA is unavailable)
   */
  public GpuClusterReconciler(
      KubernetesClient client,
      OperatorConfig config,
      String kubernetesVersion,
      ResourceApiVersion resourceApi,
      SharedNodes sharedNodes) {
    this.client = client;
    this.sharedNodes = sharedNodes;
    this.config = config;
    this.kubernetesVersion = kubernetesVersion;
    this.resourceApi = resourceApi;
    this.events = new EventRecorder(client);
  }

  @Override
  public List<EventSource<?, GPUCluster>> prepareEventSources(
      EventSourceContext<GPUCluster> context) {
    nodes = sharedNodes.events(NODES, context, Watch::labelsChanged);
    policies =
        Watch.of(ClusterPolicy.class, POLICIES, context).onUpdateWhen(Watch::never).allPrimaries();
    daemonSets =
        Watch.of(DaemonSet.class, DAEMONSETS, context)
            .in(config.namespace())
            .labelled(ManagedObjects.OPERAND_LABEL + "=" + OperandNames.DRA_DRIVER)
            .owner();
    applier = new OperandApplier(client, config.namespace(), daemonSets, config.settleWindow());
    return List.of(nodes, policies, daemonSets);
  }

  @Override
  public UpdateControl<GPUCluster> reconcile(GPUCluster cluster, Context<GPUCluster> ctx) {
    long generation = Optional.ofNullable(cluster.getMetadata().getGeneration()).orElse(0L);
    List<ClusterPolicy> policyList = policies.list().toList();
    if (!policyList.isEmpty()) {
      String message =
          "conflicting ClusterPolicy resource \""
              + policyList.get(0).getMetadata().getName()
              + "\" detected; ClusterPolicy and GPUCluster cannot co-exist";
      writeStatus(cluster, failed(cluster, generation, message), message);
      return UpdateControl.noUpdate();
    }
    List<Node> all = nodes.list().toList();
    ClusterFacts facts = NodeFacts.of(all, kubernetesVersion, false).withResourceApi(resourceApi);
    List<HasMetadata> objects;
    try {
      objects = GpuClusterModel.render(cluster, facts, config);
    } catch (PolicyValidationException e) {
      String message =
          "Invalid GPUCluster: "
              + e.violations().stream().map(Violation::toString).collect(Collectors.joining("; "));
      writeStatus(cluster, failed(cluster, generation, message), message);
      return UpdateControl.noUpdate();
    }
    List<Node> gpuNodes = all.stream().filter(NodeLabelRules::isGpuNode).toList();
    gpuNodes.forEach(this::label);
    OperandApplier.Result applied;
    try {
      applied =
          applier.sync(
              cluster,
              List.of(new RenderedOperand(OperandNames.DRA_DRIVER, true, objects)),
              ManagedObjects.served(Set.of(), resourceApi));
    } catch (RuntimeException e) {
      applier.invalidate();
      String message = "Failed to reconcile " + OperandNames.DRA_DRIVER + ": " + e.getMessage();
      writeStatus(cluster, failed(cluster, generation, message), message);
      throw e;
    }
    List<OperandReadiness> readiness =
        objects.stream()
            .filter(DaemonSet.class::isInstance)
            .map(o -> readiness(o.getMetadata().getName()))
            .toList();
    List<Violation> ignored = GpuClusterModel.unsupported(cluster);
    GPUClusterStatus status =
        PolicyStatusModel.withIgnoredFields(
            status(cluster, generation, readiness, gpuNodes.size()),
            ignored,
            generation,
            cluster.getStatus());
    writeStatus(
        cluster,
        status,
        ignored.isEmpty()
            ? null
            : ignored.stream().map(Violation::toString).collect(Collectors.joining("; ")));
    UpdateControl<GPUCluster> done = UpdateControl.noUpdate();
    return applied.waiting() ? done.rescheduleAfter(applied.settling()) : done;
  }

  private OperandReadiness readiness(String name) {
    return daemonSets
        .get(new ResourceID(name, config.namespace()))
        .map(ds -> LiveReadiness.of(client, OperandNames.DRA_DRIVER, ds))
        .orElse(new OperandReadiness(OperandNames.DRA_DRIVER, false, 0, 0, "not created"));
  }

  /** The deploy label the plugin DaemonSet selects, where absent or empty (a set value is kept). */
  private void label(Node node) {
    String key = Labels.deploy(Labels.DRA_DRIVER);
    Map<String, String> labels = node.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(key);
    if (value != null && !value.isEmpty()) {
      return;
    }
    LOG.info("Node {}: {}={}", node.getMetadata().getName(), key, Labels.TRUE);
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, node.getMetadata().getName()))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + key + "\":\"" + Labels.TRUE + "\"}}}");
  }

  private GPUClusterStatus status(
      GPUCluster cluster, long generation, List<OperandReadiness> readiness, int gpuNodes) {
    List<OperandReadiness> notReady = readiness.stream().filter(r -> !r.ready()).toList();
    if (!notReady.isEmpty()) {
      return PolicyStatusModel.fill(
          new GPUClusterStatus(),
          Verdict.notReady(
              DRIVER_NOT_READY,
              "The DRA driver's kubelet plugin waits for the NVIDIA driver: "
                  + notReady.stream()
                      .map(
                          r ->
                              r.nodesReady()
                                  + "/"
                                  + r.nodesDesired()
                                  + " nodes ready ("
                                  + r.reason()
                                  + ")")
                      .collect(Collectors.joining(", "))),
          generation,
          config.namespace(),
          readiness,
          cluster.getStatus());
    }
    return PolicyStatusModel.fill(
        new GPUClusterStatus(),
        Verdict.ready(
            gpuNodes == 0 ? Conditions.NO_GPU_NODES : Conditions.RECONCILED,
            gpuNodes == 0
                ? "No GPU node found, watching for new nodes to join the cluster."
                : "GPUCluster is ready: the DRA driver runs on every GPU node"),
        generation,
        config.namespace(),
        readiness,
        cluster.getStatus());
  }

  private GPUClusterStatus failed(GPUCluster cluster, long generation, String message) {
    return PolicyStatusModel.failed(
        new GPUClusterStatus(), generation, config.namespace(), message, cluster.getStatus());
  }

  private void writeStatus(GPUCluster cluster, GPUClusterStatus status, String warning) {
    StatusWriter.write(client, events, LOG, GPUCluster.class, cluster, status, warning);
  }
}
