package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.compat.DriverCompatibility;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.driver.DriverChecks;
import io.gpuoperator.operator.driver.DriverOwners;
import io.gpuoperator.operator.driver.NvidiaDriverModel;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.DriverTransform;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.OperandReadiness;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.operator.status.Verdict;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeRollout;
import io.gpuoperator.operator.upgrade.UpgradeViews;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the driver from NVIDIADriver resources, on their own as the original v26.7 does (no
 * ClusterPolicy: every policy setting at its default, {@link NvidiaDriverModel#standalone}) or
 * under a ClusterPolicy that sets {@code driver.useNvidiaDriverCRD}: assigns GPU nodes to resources
 * ({@link DriverOwners}: selectors, then the one default; a node two resources select is a conflict
 * that keeps its owner), labels each node with its owner, keeps the objects the DaemonSets run with
 * ({@link DriverSupportObjects}), checks each resource's node pools ({@link DriverChecks}) and
 * applies its per-pool DaemonSets ({@link NvidiaDriverModel}); a refused pool's DaemonSet stays as
 * it is. Each resource has its own status: state, conditions (ConflictingNodeSelector,
 * DriverIncompatible, OperandNotReady), its pools, GPUDirect prerequisites and upgrade progress. A
 * ClusterPolicy that runs the driver itself takes the nodes over: the resources report that they
 * are not used. The upgrade itself is the {@link DriverUpgradeReconciler}'s.
 */
public class NvidiaDriverReconciler implements Reconciler<NVIDIADriver> {
  private static final Logger LOG = LoggerFactory.getLogger(NvidiaDriverReconciler.class);
  static final String NODES = "nvd-nodes";
  static final String PEERS = "nvd-peers";
  static final String POLICIES = "nvd-policies";
  static final String DAEMONSETS = "nvd-daemonsets";

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final String kubernetesVersion;
  private final EventRecorder events;
  private final DriverSupportObjects support;

  private final SharedNodes sharedNodes;
  private volatile SharedNodes.Events<NVIDIADriver> nodes;
  private volatile InformerEventSource<NVIDIADriver, NVIDIADriver> peers;
  private volatile InformerEventSource<ClusterPolicy, NVIDIADriver> policies;
  private volatile InformerEventSource<DaemonSet, NVIDIADriver> daemonSets;

  public NvidiaDriverReconciler(
      KubernetesClient client,
      OperatorConfig config,
      String kubernetesVersion,
      SharedNodes sharedNodes) {
    this.client = client;
    this.sharedNodes = sharedNodes;
    this.config = config;
    this.kubernetesVersion = kubernetesVersion;
    this.events = new EventRecorder(client);
    this.support = new DriverSupportObjects(client);
  }

  @Override
  public List<EventSource<?, NVIDIADriver>> prepareEventSources(
      EventSourceContext<NVIDIADriver> context) {
    // Which driver owns a node depends on every driver and every node label: any such change
    // reconciles every driver.
    nodes = sharedNodes.events(NODES, context, Watch::labelsChanged);
    peers =
        Watch.of(NVIDIADriver.class, PEERS, context)
            .onUpdateWhen(Watch::specOrDeletionChanged)
            .allPrimaries();
    policies =
        Watch.of(ClusterPolicy.class, POLICIES, context)
            .onUpdateWhen(Watch::specChanged)
            .allPrimaries();
    daemonSets =
        Watch.of(DaemonSet.class, DAEMONSETS, context)
            .in(config.namespace())
            .labelled(UpgradeKeys.COMPONENT + "=" + UpgradeKeys.DRIVER_COMPONENT)
            .owner();
    return List.of(nodes, peers, policies, daemonSets);
  }

  @Override
  public UpdateControl<NVIDIADriver> reconcile(NVIDIADriver driver, Context<NVIDIADriver> ctx) {
    String name = driver.getMetadata().getName();
    long generation = Optional.ofNullable(driver.getMetadata().getGeneration()).orElse(0L);
    List<DaemonSet> mine =
        daemonSets
            .list()
            .filter(ds -> driver.getMetadata().getUid().equals(UpgradeViews.controller(ds)))
            .toList();
    Optional<ClusterPolicy> active = ActivePolicy.of(policies.list().toList());
    if (active.isPresent() && !DriverTransform.byNvidiaDriverResources(active.get())) {
      String message =
          "ClusterPolicy "
              + active.get().getMetadata().getName()
              + " runs the driver itself: set driver.useNvidiaDriverCRD: true to use"
              + " NVIDIADriver resources";
      // The policy's own DaemonSets take the nodes over, node by node.
      mine.forEach(this::deleteLeavingPods);
      writeStatus(driver, notUsed(driver, generation, message), null);
      return UpdateControl.noUpdate();
    }
    // No ClusterPolicy: the resources run on their own, with every policy setting at its default.
    boolean standalone = active.isEmpty();
    ClusterPolicy policy = active.orElseGet(NvidiaDriverModel::standalone);
    String unsupported = NvidiaDriverModel.unsupported(driver);
    if (unsupported != null) {
      writeStatus(driver, notUsed(driver, generation, unsupported), unsupported);
      return UpdateControl.noUpdate();
    }

    List<Node> gpuNodes = nodes.list().filter(NodeLabelRules::isGpuNode).toList();
    List<NVIDIADriver> all = DriverOwners.withCurrent(peers.list().toList(), driver);
    DriverOwners owners = DriverOwners.assign(all, gpuNodes);
    labelNodes(name, owners, gpuNodes, standalone);
    support.keep(
        NvidiaDriverModel.supportObjects(
            policy, NodeFacts.of(List.of(), kubernetesVersion, false), config),
        all,
        standalone);
    List<Node> assigned =
        gpuNodes.stream()
            .filter(n -> name.equals(owners.owners().get(n.getMetadata().getName())))
            .toList();
    ClusterFacts facts =
        NodeFacts.of(assigned, kubernetesVersion, false)
            .withConfigMapKeys(
                ConfigMapKeys.read(
                    client, config.namespace(), NvidiaDriverModel.policyFor(driver, policy)));
    DriverChecks.Result checks =
        DriverChecks.check(
            DriverChecks.Settings.of(
                driver.getSpec() == null
                    ? new io.gpuoperator.api.v1alpha1.NVIDIADriverSpec()
                    : driver.getSpec(),
                policy.getSpec(),
                config.image(OperandNames.DRIVER),
                DriverChecks.CUDA_DEFAULT),
            assigned,
            DriverCompatibility.shipped(),
            true);
    List<DaemonSet> wanted;
    try {
      wanted = NvidiaDriverModel.daemonSets(driver, policy, facts, config);
    } catch (PolicyValidationException e) {
      String message =
          "Invalid NVIDIADriver: "
              + e.violations().stream().map(Violation::toString).collect(Collectors.joining("; "));
      writeStatus(driver, invalid(driver, generation, message), message);
      return UpdateControl.noUpdate();
    }
    Set<String> names = new HashSet<>();
    for (DaemonSet ds : wanted) {
      names.add(ds.getMetadata().getName());
      if (!checks.freezes(ds, assigned)) {
        apply(driver, ds);
      }
    }
    mine.stream()
        .filter(ds -> !names.contains(ds.getMetadata().getName()))
        .forEach(this::deleteLeavingPods);

    List<OperandReadiness> readiness = new ArrayList<>();
    for (DaemonSet w : wanted) {
      Optional<DaemonSet> live =
          daemonSets.get(new ResourceID(w.getMetadata().getName(), config.namespace()));
      readiness.add(
          live.isEmpty()
              ? new OperandReadiness(w.getMetadata().getName(), false, 0, 0, "not created")
              : LiveReadiness.of(client, w.getMetadata().getName(), live.get()));
    }
    NVIDIADriverStatus status =
        status(driver, generation, owners.conflictOf(name), checks, readiness, assigned);
    status.driverPools = assigned.isEmpty() ? null : checks.poolStatus();
    status.gpuDirect = checks.listedUnmet();
    status.driverUpgrade =
        UpgradeRollout.status(assigned, NvidiaDriverModel.upgradeSettings(driver, policy));
    String warning = owners.conflictOf(name);
    if (warning == null) {
      warning = owners.errors().get(name);
    }
    if (warning == null) {
      warning = checks.refusedMessage();
    }
    writeStatus(driver, status, warning);
    return UpdateControl.noUpdate();
  }

  /**
   * The owner label on every GPU node assigned to this driver; removed from nodes this driver no
   * longer gets (a conflicted node keeps whatever it has). Without a ClusterPolicy, whose node
   * labelling would set it, an assigned node also gets the driver's deploy label unless it has one
   * (a node set to {@code false} by hand stays paused).
   */
  private void labelNodes(
      String name, DriverOwners owners, List<Node> gpuNodes, boolean standalone) {
    for (Node n : gpuNodes) {
      String node = n.getMetadata().getName();
      Map<String, String> labels =
          n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
      String current = labels.get(DriverOwners.OWNER);
      String wanted = owners.owners().get(node);
      Map<String, String> set = new TreeMap<>();
      if (name.equals(wanted) && !name.equals(current)) {
        set.put(DriverOwners.OWNER, "\"" + name + "\"");
      } else if (name.equals(current) && wanted == null && !owners.conflicts().containsKey(node)) {
        set.put(DriverOwners.OWNER, "null");
      }
      if (standalone && name.equals(wanted) && !labels.containsKey(DEPLOY_DRIVER)) {
        set.put(DEPLOY_DRIVER, "\"true\"");
      }
      if (!set.isEmpty()) {
        patchLabels(node, set);
      }
    }
  }

  /** The deploy label the driver operand's DaemonSets select on. */
  private static final String DEPLOY_DRIVER = Labels.deploy(OperandNames.DRIVER);

  /** One merge patch of node labels; each value is JSON (a quoted string, or null to remove). */
  private void patchLabels(String node, Map<String, String> labels) {
    LOG.info("Node {}: labels {}", node, labels);
    String json =
        labels.entrySet().stream()
            .map(e -> "\"" + e.getKey() + "\":" + e.getValue())
            .collect(Collectors.joining(","));
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, node))
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{" + json + "}}}");
  }

  /** Server-side apply with this driver as controller, unless the live one is up to date. */
  private void apply(NVIDIADriver owner, DaemonSet rendered) {
    DaemonSet desired = Serialization.clone(rendered);
    desired.getMetadata().setNamespace(config.namespace());
    OwnerReference ref = OperandApplier.ownerReference(owner);
    desired.getMetadata().setOwnerReferences(List.of(ref));
    Optional<DaemonSet> live = daemonSets.get(ResourceID.fromResource(desired));
    if (live.isPresent()
        && ManagedObjects.upToDate(desired, live.get())
        && ManagedObjects.ownedBy(live.get(), ref)) {
      return;
    }
    LOG.info(
        "NVIDIADriver {}: {} DaemonSet {}/{}",
        owner.getMetadata().getName(),
        live.isEmpty() ? "creating" : "updating",
        config.namespace(),
        desired.getMetadata().getName());
    DaemonSet written =
        client
            .resource(desired)
            .fieldManager(ReconcilerKeys.FIELD_MANAGER)
            .forceConflicts()
            .serverSideApply();
    ResourceID id = ResourceID.fromResource(written);
    if (live.isEmpty()) {
      daemonSets.handleRecentResourceCreate(id, written);
    } else {
      daemonSets.handleRecentResourceUpdate(id, written, live.get());
    }
  }

  /** Deletes a driver DaemonSet, leaving its pods for the upgrade to replace node by node. */
  private void deleteLeavingPods(DaemonSet ds) {
    LOG.info(
        "DaemonSet {}/{}: deleting, leaving its pods to the driver upgrade",
        ds.getMetadata().getNamespace(),
        ds.getMetadata().getName());
    try {
      client
          .apps()
          .daemonSets()
          .inNamespace(ds.getMetadata().getNamespace())
          .withName(ds.getMetadata().getName())
          .withPropagationPolicy(DeletionPropagation.ORPHAN)
          .delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private NVIDIADriverStatus status(
      NVIDIADriver driver,
      long generation,
      String conflict,
      DriverChecks.Result checks,
      List<OperandReadiness> readiness,
      List<Node> assigned) {
    NVIDIADriverStatus previous = driver.getStatus();
    NVIDIADriverStatus s = new NVIDIADriverStatus();
    if (conflict != null) {
      return PolicyStatusModel.fill(
          s,
          Verdict.error(Conditions.CONFLICTING_NODE_SELECTOR, conflict),
          generation,
          config.namespace(),
          readiness,
          previous);
    }
    if (checks.refusedMessage() != null) {
      PolicyStatusModel.fill(
          s, Verdict.notReady("", ""), generation, config.namespace(), readiness, previous);
      return PolicyStatusModel.driverRefused(s, generation, checks.refusedMessage(), previous);
    }
    List<OperandReadiness> notReady = readiness.stream().filter(r -> !r.ready()).toList();
    if (!notReady.isEmpty()) {
      return PolicyStatusModel.fill(
          s,
          Verdict.notReady(
              Conditions.OPERAND_NOT_READY,
              "Driver DaemonSets not ready: "
                  + notReady.stream()
                      .map(r -> r.name() + " (" + r.reason() + ")")
                      .collect(Collectors.joining(", "))),
          generation,
          config.namespace(),
          readiness,
          previous);
    }
    if (assigned.isEmpty()) {
      return PolicyStatusModel.fill(
          s,
          Verdict.ready(
              Conditions.NO_GPU_NODES,
              "No GPU node is assigned to this NVIDIADriver (nodeSelector, or default)"),
          generation,
          config.namespace(),
          readiness,
          previous);
    }
    return PolicyStatusModel.fill(
        s,
        Verdict.ready(Conditions.RECONCILED, "The driver runs on every assigned node"),
        generation,
        config.namespace(),
        readiness,
        previous);
  }

  private NVIDIADriverStatus notUsed(NVIDIADriver d, long generation, String message) {
    return PolicyStatusModel.fill(
        new NVIDIADriverStatus(),
        Verdict.ignored(Conditions.NOT_USED, message),
        generation,
        config.namespace(),
        null,
        d.getStatus());
  }

  private NVIDIADriverStatus invalid(NVIDIADriver d, long generation, String message) {
    return PolicyStatusModel.failed(
        new NVIDIADriverStatus(), generation, config.namespace(), message, d.getStatus());
  }

  private void writeStatus(NVIDIADriver driver, NVIDIADriverStatus status, String warning) {
    StatusWriter.write(client, events, LOG, NVIDIADriver.class, driver, status, warning);
  }
}
