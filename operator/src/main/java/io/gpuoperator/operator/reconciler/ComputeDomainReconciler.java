package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.api.v1alpha1.GPUClusterDraDriverSpec;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.operand.ComputeDomainStatusModel;
import io.gpuoperator.operator.operand.GpuClusterModel;
import io.gpuoperator.operator.operand.ImageResolver;
import io.gpuoperator.operator.operand.RenderContext;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.net.HttpURLConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NVIDIA's compute-domain controller, inside the operator, while the GPUCluster has {@code
 * draDriver.computeDomains.enabled: true}: for each ComputeDomain the objects of {@link
 * ComputeDomainModel} (created once, like NVIDIA's: claim templates are immutable), and the status
 * from the domain's daemon pods ({@link ComputeDomainStatusModel}). The workload's claim template
 * is owned by the domain (same namespace, garbage-collected with it); the daemon's objects live in
 * the operator's namespace, where an owner reference to a namespaced domain is not allowed, so
 * NVIDIA's finalizer keeps the domain until {@link #cleanup} has deleted them and the domain's node
 * labels. A spec the API server accepted but that cannot be served (a template name the server
 * would refuse, or one another object already uses) is a Warning Event naming the field, and the
 * domain stays NotReady.
 */
public class ComputeDomainReconciler implements Reconciler<ComputeDomain>, Cleaner<ComputeDomain> {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeDomainReconciler.class);
  static final String GPU_CLUSTERS = "cd-gpuclusters";
  static final String PODS = "cd-pods";
  static final String DAEMONSETS = "cd-daemonsets";
  static final String NODES = "cd-nodes";

  /** How soon a status computed from a copy that a daemon has since changed is computed again. */
  static final Duration STALE_RETRY = Duration.ofSeconds(1);

  /** The Warning Event's reason for a spec that cannot be served. */
  static final String INVALID_SPEC = "InvalidSpec";

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final ResourceApiVersion resourceApi;
  private final SharedNodes sharedNodes;
  private final EventRecorder events;

  private volatile InformerEventSource<GPUCluster, ComputeDomain> gpuClusters;
  private volatile InformerEventSource<Pod, ComputeDomain> pods;
  private volatile SharedNodes.Events<ComputeDomain> nodes;

  /**
   * @param resourceApi the newest {@code resource.k8s.io} version the server serves (null: none,
   *     and nothing is created)
   */
  public ComputeDomainReconciler(
      KubernetesClient client,
      OperatorConfig config,
      ResourceApiVersion resourceApi,
      SharedNodes sharedNodes) {
    this.client = client;
    this.config = config;
    this.resourceApi = resourceApi;
    this.sharedNodes = sharedNodes;
    this.events = new EventRecorder(client);
  }

  @Override
  public List<EventSource<?, ComputeDomain>> prepareEventSources(
      EventSourceContext<ComputeDomain> context) {
    gpuClusters =
        Watch.of(GPUCluster.class, GPU_CLUSTERS, context)
            .onUpdateWhen(Watch::specChanged)
            .allPrimaries();
    pods =
        Watch.of(Pod.class, PODS, context)
            .in(config.namespace())
            .labelled(ComputeDomainModel.DOMAIN_LABEL)
            .byUidLabel(ComputeDomainModel.DOMAIN_LABEL);
    InformerEventSource<DaemonSet, ComputeDomain> daemonSets =
        Watch.of(DaemonSet.class, DAEMONSETS, context)
            .in(config.namespace())
            .labelled(ComputeDomainModel.DOMAIN_LABEL)
            .onUpdateWhen(Watch::never)
            .byUidLabel(ComputeDomainModel.DOMAIN_LABEL);
    // A node's clique label is part of the status.
    nodes = sharedNodes.events(NODES, context, Watch::labelsChanged);
    return List.of(gpuClusters, pods, daemonSets, nodes);
  }

  @Override
  public UpdateControl<ComputeDomain> reconcile(ComputeDomain cd, Context<ComputeDomain> ctx) {
    Optional<GPUCluster> gc = gpuClusters.list().findFirst();
    if (gc.isEmpty() || !GpuClusterModel.computeDomains(gc.get())) {
      LOG.debug(
          "ComputeDomains are not enabled (GPUCluster spec.draDriver.computeDomains.enabled):"
              + " nothing done");
      return UpdateControl.noUpdate();
    }
    List<Violation> bad = new ArrayList<>(ComputeDomainModel.validate(cd));
    if (resourceApi == null) {
      bad.add(
          new Violation(
              "spec.channel",
              "the API server serves no resource.k8s.io version: ComputeDomains need Dynamic"
                  + " Resource Allocation (Kubernetes 1.32 or newer)"));
    }
    String image = null;
    GPUClusterDraDriverSpec dra = gc.get().getSpec().draDriver; // non-null: enabled
    if (bad.isEmpty()) {
      try {
        image =
            ImageResolver.resolve(
                dra,
                Section.DRA_DRIVER.path(),
                RenderContext.defaultImage(config, Section.DRA_DRIVER));
      } catch (PolicyValidationException e) {
        // The GPUCluster's field, not the domain's.
        e.violations().stream()
            .map(v -> new Violation("GPUCluster " + GPUCluster.NAME + " " + v.path(), v.reason()))
            .forEach(bad::add);
      }
    }
    if (bad.isEmpty()) {
      foreignTemplate(cd).ifPresent(bad::add);
    }
    if (!bad.isEmpty()) {
      String message =
          "ComputeDomain "
              + cd.getMetadata().getNamespace()
              + "/"
              + cd.getMetadata().getName()
              + ": "
              + bad.stream().map(Violation::toString).collect(Collectors.joining("; "));
      LOG.warn("{}", message.substring(message.indexOf(": ") + 2));
      events.warning(cd, INVALID_SPEC, message);
      return writeStatus(cd, notReady(cd))
          ? UpdateControl.noUpdate()
          : UpdateControl.<ComputeDomain>noUpdate().rescheduleAfter(STALE_RETRY);
    }
    createIfMissing(ComputeDomainModel.workloadClaimTemplate(cd, resourceApi));
    createIfMissing(ComputeDomainModel.daemonClaimTemplate(cd, config.namespace(), resourceApi));
    createIfMissing(
        ComputeDomainModel.daemonSet(
            cd,
            config.namespace(),
            image,
            ImageResolver.pullPolicy(dra == null ? null : dra.imagePullPolicy),
            dra == null ? null : dra.imagePullSecrets));
    List<Pod> daemons =
        pods.list(config.namespace())
            .filter(
                p ->
                    cd.getMetadata()
                        .getUid()
                        .equals(p.getMetadata().getLabels().get(ComputeDomainModel.DOMAIN_LABEL)))
            .toList();
    if (!writeStatus(cd, ComputeDomainStatusModel.of(cd, daemons, cliques()))) {
      // A daemon wrote its entry since our copy was read: again, from the newer one.
      return UpdateControl.<ComputeDomain>noUpdate().rescheduleAfter(STALE_RETRY);
    }
    return UpdateControl.noUpdate();
  }

  /**
   * Deletes the daemon's DaemonSet and claim template and the domain's node labels; the workload's
   * template goes with the domain (owner reference).
   */
  @Override
  public DeleteControl cleanup(ComputeDomain cd, Context<ComputeDomain> ctx) {
    String name = ComputeDomainModel.daemonName(cd);
    client.apps().daemonSets().inNamespace(config.namespace()).withName(name).delete();
    if (resourceApi != null) {
      templates().inNamespace(config.namespace()).withName(name).delete();
    }
    String uid = cd.getMetadata().getUid();
    nodes
        .list()
        .filter(n -> uid.equals(labels(n).get(ComputeDomainModel.DOMAIN_LABEL)))
        .forEach(n -> unlabel(n.getMetadata().getName()));
    LOG.info("deleted: its IMEX daemon {} and node labels removed", name);
    return DeleteControl.defaultDelete();
  }

  /** The channel template's name taken by an object that is not this domain's. */
  private Optional<Violation> foreignTemplate(ComputeDomain cd) {
    String name = cd.getSpec().channel.resourceClaimTemplate.name;
    GenericKubernetesResource existing =
        templates().inNamespace(cd.getMetadata().getNamespace()).withName(name).get();
    if (existing == null) {
      return Optional.empty();
    }
    Map<String, String> labels = existing.getMetadata().getLabels();
    String owner = labels == null ? null : labels.get(ComputeDomainModel.DOMAIN_LABEL);
    if (cd.getMetadata().getUid().equals(owner)) {
      return Optional.empty();
    }
    return Optional.of(
        new Violation(
            "spec.channel.resourceClaimTemplate.name",
            "ResourceClaimTemplate "
                + cd.getMetadata().getNamespace()
                + "/"
                + name
                + " already exists and is not this ComputeDomain's"
                + (owner == null ? "" : " (it belongs to ComputeDomain UID " + owner + ")")
                + "; choose another name"));
  }

  private io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      templates() {
    return client.genericKubernetesResources(resourceApi.apiVersion(), "ResourceClaimTemplate");
  }

  private void createIfMissing(HasMetadata desired) {
    var existing =
        desired instanceof GenericKubernetesResource g
            ? templates()
                .inNamespace(g.getMetadata().getNamespace())
                .withName(g.getMetadata().getName())
                .get()
            : client.resource(desired).get();
    if (existing == null) {
      LOG.info(
          "Creating {} {}/{}",
          desired.getKind(),
          desired.getMetadata().getNamespace(),
          desired.getMetadata().getName());
      client.resource(desired).create();
    }
  }

  private Map<String, String> cliques() {
    Map<String, String> out = new HashMap<>();
    nodes
        .list()
        .forEach(
            n -> {
              String clique = labels(n).get(ComputeDomainModel.CLIQUE_LABEL);
              if (clique != null) {
                out.put(n.getMetadata().getName(), clique);
              }
            });
    return out;
  }

  private static Map<String, String> labels(Node n) {
    return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
  }

  private void unlabel(String node) {
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, node))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + ComputeDomainModel.DOMAIN_LABEL + "\":null}}}");
  }

  private static ComputeDomainStatus notReady(ComputeDomain cd) {
    ComputeDomainStatus s = new ComputeDomainStatus();
    s.status = ComputeDomainStatus.Readiness.NotReady;
    s.nodes = cd.getStatus() == null ? null : cd.getStatus().nodes;
    return s;
  }

  /**
   * Patches the status subresource, only when it changes, and only over the copy it was computed
   * from: NVIDIA's daemons write their entries into {@code status.nodes} too, and a merge patch
   * replaces the whole list, so an entry written meanwhile would be lost. False when the domain
   * changed since (the API server's conflict on the resourceVersion).
   */
  private boolean writeStatus(ComputeDomain cd, ComputeDomainStatus status) {
    if (ComputeDomainStatusModel.same(cd.getStatus(), status)) {
      return true;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", status.status.name());
    // A merge patch replaces the whole list; an empty one clears it.
    body.put("nodes", status.nodes == null ? List.of() : status.nodes);
    Map<String, Object> patch = new LinkedHashMap<>();
    patch.put("metadata", Map.of("resourceVersion", cd.getMetadata().getResourceVersion()));
    patch.put("status", body);
    try {
      client
          .resources(ComputeDomain.class)
          .inNamespace(cd.getMetadata().getNamespace())
          .withName(cd.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(patch));
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      LOG.debug("status not written: the domain changed since it was read");
      return false;
    }
    LOG.info(
        "status {} ({} node(s))", status.status, status.nodes == null ? 0 : status.nodes.size());
    return true;
  }
}
