package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.GpuFaultContract;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicyStatus;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.DriverToolkitFacts;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.compat.DriverCompatibility;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.driver.DriverChecks;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.metrics.OperatorMetrics;
import io.gpuoperator.operator.operand.DriverTransform;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.remediation.RemediationBudget;
import io.gpuoperator.operator.remediation.RemediationKeys;
import io.gpuoperator.operator.remediation.RemediationNode;
import io.gpuoperator.operator.remediation.RemediationSettings;
import io.gpuoperator.operator.remediation.RemediationView;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.DaemonSetReadiness;
import io.gpuoperator.operator.status.OperandReadiness;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeRollout;
import io.gpuoperator.operator.upgrade.UpgradeSettings;
import io.gpuoperator.operator.validation.IgnoredFields;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the GPU stack from the active ClusterPolicy: renders the operands, applies what changed,
 * deletes disabled operands, and reports readiness from DaemonSet status events. Reconciles are
 * triggered by the policy, by its DaemonSets (label-selected informer in the operator namespace),
 * by GPU-relevant Node label changes and by other policies appearing or going away; there is no
 * periodic requeue.
 */
public class ClusterPolicyReconciler implements Reconciler<ClusterPolicy> {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterPolicyReconciler.class);
  static final String DAEMONSETS = "daemonsets";
  static final String NODES = "nodes";
  static final String PEERS = "policies";
  static final String CRDS = "monitoring-crd";
  static final String RULE_CRDS = "prometheus-rule-crd";
  static final String GPU_CLUSTERS = "gpuclusters";

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final PolicyRenderer renderer;
  private final OperatorMetrics metrics;
  private final String kubernetesVersion;
  private final ResourceApiVersion resourceApi;
  private final EventRecorder events;

  /** The last rendering that applied cleanly, per policy uid: an invalid spec keeps it running. */
  private final Map<String, List<RenderedOperand>> lastValid = new ConcurrentHashMap<>();

  private final ClusterPolicyStatusWriter statuses;

  private volatile InformerEventSource<DaemonSet, ClusterPolicy> daemonSets;
  private final SharedNodes sharedNodes;
  private volatile SharedNodes.Events<ClusterPolicy> nodes;
  private volatile InformerEventSource<CustomResourceDefinition, ClusterPolicy> monitoringCrd;
  private volatile InformerEventSource<CustomResourceDefinition, ClusterPolicy> ruleCrd;
  private volatile InformerEventSource<ClusterPolicy, ClusterPolicy> peers;
  private volatile InformerEventSource<GPUCluster, ClusterPolicy> gpuClusters;
  private volatile OperandApplier applier;

  /**
   * @param kubernetesVersion the API server's git version, read once at start; a server older than
   *     {@link KubernetesVersion#MINIMUM} gets a condition instead of operands
   * @param resourceApi the newest {@code resource.k8s.io} version the server serves, discovered
   *     once at start with the version; null when it has none (the DRA driver cannot be deployed)
   */
  public ClusterPolicyReconciler(
      KubernetesClient client,
      OperatorConfig config,
      PolicyRenderer renderer,
      OperatorMetrics metrics,
      String kubernetesVersion,
      ResourceApiVersion resourceApi,
      SharedNodes sharedNodes) {
    this.client = client;
    this.config = config;
    this.renderer = renderer;
    this.sharedNodes = sharedNodes;
    this.metrics = metrics;
    this.kubernetesVersion = kubernetesVersion;
    this.resourceApi = resourceApi;
    this.events = new EventRecorder(client);
    this.statuses = new ClusterPolicyStatusWriter(client);
  }

  @Override
  public List<EventSource<?, ClusterPolicy>> prepareEventSources(
      EventSourceContext<ClusterPolicy> context) {
    daemonSets =
        Watch.of(DaemonSet.class, DAEMONSETS, context)
            .in(config.namespace())
            .labelled(ManagedObjects.OPERAND_LABEL)
            .owner();
    nodes = sharedNodes.events(NODES, context, ClusterPolicyReconciler::factsChanged);
    // Another policy appearing, changing or going away can change which one is active.
    peers =
        Watch.of(ClusterPolicy.class, PEERS, context)
            .onUpdateWhen(Watch::specOrDeletionChanged)
            .allPrimaries();
    // Installing the Prometheus operator later must add the ServiceMonitors and PrometheusRules:
    // watch those two CRDs (by name; the field selector takes one value each).
    monitoringCrd =
        Watch.of(CustomResourceDefinition.class, CRDS, context)
            .named(ManagedObjects.SERVICE_MONITOR_CRD)
            .allPrimaries();
    ruleCrd =
        Watch.of(CustomResourceDefinition.class, RULE_CRDS, context)
            .named(ManagedObjects.PROMETHEUS_RULE_CRD)
            .allPrimaries();
    // A GPUCluster appearing or going away stops or resumes every policy.
    gpuClusters =
        Watch.of(GPUCluster.class, GPU_CLUSTERS, context).onUpdateWhen(Watch::never).allPrimaries();
    applier = new OperandApplier(client, config.namespace(), daemonSets, config.settleWindow());
    return List.of(daemonSets, nodes, peers, monitoringCrd, ruleCrd, gpuClusters);
  }

  /**
   * Only label changes that alter the facts (GPU presence, NFD GPU, OS), the driver upgrade's or
   * remediation's progress (a node's state label), or a GPU fault condition turning True or False
   * (the remediation circuit breaker's count) re-render the policy.
   */
  static boolean factsChanged(Node before, Node after) {
    Map<String, String> a = relevant(before);
    Map<String, String> b = relevant(after);
    return !a.equals(b) || !faults(before).equals(faults(after));
  }

  private static List<String> faults(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return List.of();
    }
    return n.getStatus().getConditions().stream()
        .filter(c -> GpuFaultContract.FAULT_TYPES.contains(c.getType()))
        .filter(c -> "True".equals(c.getStatus()))
        .map(c -> c.getType())
        .sorted()
        .toList();
  }

  private static Map<String, String> relevant(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    if (l == null) {
      return Map.of();
    }
    Map<String, String> out = new java.util.HashMap<>();
    List<String> keys = new ArrayList<>(Labels.NFD_GPU_LABELS);
    keys.addAll(
        List.of(
            Labels.GPU_PRESENT,
            Labels.PCI_PRESENT,
            Labels.NFD_OS_ID,
            Labels.NFD_OS_VERSION_ID,
            Labels.NFD_KERNEL_FULL,
            // Which allocator a node chose: the status names the nodes in conflict.
            Labels.DEPLOY_OPERANDS,
            Labels.WORKLOAD_CONFIG,
            Labels.deploy(Labels.DEVICE_PLUGIN),
            Labels.deploy(Labels.DRA_DRIVER),
            UpgradeKeys.STATE,
            RemediationKeys.STATE));
    for (String key : keys) {
      if (l.containsKey(key)) {
        out.put(key, l.get(key));
      }
    }
    return out;
  }

  /**
   * One pass reads straight through: observe the policy and the cluster, check what stops it
   * (another active policy, a GPUCluster, an unsupported server), validate and render, apply, then
   * write the status it concluded, once, and report what goes with a change.
   */
  @Override
  public UpdateControl<ClusterPolicy> reconcile(
      ClusterPolicy policy, Context<ClusterPolicy> context) {
    Observed seen = observe(policy);
    Pass pass = stopped(policy, seen).orElseGet(() -> renderAndApply(policy, seen));
    pass.report().accept(statuses.write(policy, pass.status()));
    UpdateControl<ClusterPolicy> done = UpdateControl.noUpdate();
    // A DaemonSet held back by its settle window: come back when it may be written.
    return pass.again().isZero() ? done : done.rescheduleAfter(pass.again());
  }

  /**
   * What a pass concluded: the status it writes (once), and what it reports knowing whether that
   * status was new (events and logs only along with a change, so an idle pass says nothing).
   */
  private record Pass(ClusterPolicyStatus status, Consumer<Boolean> report, Duration again) {
    Pass(ClusterPolicyStatus status, Consumer<Boolean> report) {
      this(status, report, Duration.ZERO);
    }
  }

  /** What a pass starts from. */
  private record Observed(
      long generation, ClusterPolicyStatus previous, ClusterPolicy active, ClusterFacts facts) {}

  private Observed observe(ClusterPolicy policy) {
    long generation = Optional.ofNullable(policy.getMetadata().getGeneration()).orElse(0L);
    // The peers informer, not the primary cache: its events are what re-run this decision, so
    // reading its own cache cannot miss the change that triggered them (a deleted active policy).
    List<ClusterPolicy> all = peers.list().toList();
    // Forget what this process remembers about policies that no longer exist.
    Set<String> uids = all.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
    uids.add(policy.getMetadata().getUid());
    lastValid.keySet().retainAll(uids);
    statuses.retainOnly(uids);
    return new Observed(
        generation, statuses.previous(policy), ActivePolicy.of(all).orElse(policy), facts(policy));
  }

  /** The pass of a policy that must not be applied now, if it must not. */
  private Optional<Pass> stopped(ClusterPolicy policy, Observed seen) {
    String active = seen.active().getMetadata().getName();
    if (!active.equals(policy.getMetadata().getName())) {
      LOG.info("ignored, {} is active", active);
      return Optional.of(
          new Pass(
              PolicyStatusModel.ignored(
                  seen.generation(), config.namespace(), active, seen.previous()),
              changed -> {}));
    }
    Optional<GPUCluster> gpuCluster = gpuClusters.list().findFirst();
    if (gpuCluster.isPresent()) {
      // The original's reconcile error: nothing is applied or deleted while both exist.
      String message =
          "conflicting GPUCluster resource \""
              + gpuCluster.get().getMetadata().getName()
              + "\" detected; ClusterPolicy and GPUCluster cannot co-exist";
      return Optional.of(
          new Pass(
              PolicyStatusModel.failed(
                  seen.generation(), config.namespace(), message, seen.previous()),
              warnOnChange(policy, Conditions.RECONCILE_FAILED, message)));
    }
    Optional<String> unsupported = KubernetesVersion.unsupportedReason(kubernetesVersion);
    if (unsupported.isPresent()) {
      return Optional.of(
          new Pass(
              PolicyStatusModel.unsupportedServer(
                  seen.generation(), config.namespace(), unsupported.get(), seen.previous()),
              warnOnChange(policy, Conditions.UNSUPPORTED_KUBERNETES_VERSION, unsupported.get())));
    }
    return Optional.empty();
  }

  /** Logs an error and records a Warning Event, both only along with a status change. */
  private Consumer<Boolean> warnOnChange(ClusterPolicy policy, String reason, String message) {
    return changed -> {
      if (changed) {
        LOG.error("{}", message);
        warn(policy, reason, message);
      }
    };
  }

  private Pass renderAndApply(ClusterPolicy policy, Observed seen) {
    ClusterFacts facts = seen.facts();
    List<Violation> violations = renderer.validate(policy);
    List<RenderedOperand> rendered = null;
    if (violations.isEmpty()) {
      try {
        rendered = renderer.render(policy, facts, config);
      } catch (PolicyValidationException e) {
        violations = e.violations();
      }
    }
    if (!violations.isEmpty()) {
      return invalid(policy, seen, violations);
    }

    List<Node> gpuNodes = nodes.list().filter(NodeLabelRules::isGpuNode).toList();
    DriverChecks.Result checks = driverChecks(policy, gpuNodes, facts);
    OperandApplier.Result result;
    try {
      if (PodSecurityLabels.wanted(policy.getSpec())) {
        PodSecurityLabels.ensure(client, config.namespace());
      }
      result =
          applier.sync(
              policy,
              rendered,
              servedKinds(),
              o ->
                  checks != null
                      && DriverUpgradeReconciler.isDriver(o)
                      && checks.freezes((DaemonSet) o, gpuNodes));
    } catch (RuntimeException e) {
      applier.invalidate();
      throw e;
    }
    lastValid.put(policy.getMetadata().getUid(), rendered);
    long generation = seen.generation();
    ClusterPolicyStatus status =
        PolicyStatusModel.withIgnoredFields(
            PolicyStatusModel.applied(
                generation,
                config.namespace(),
                readiness(rendered),
                facts.gpuNodeCount(),
                facts.nfdLabelsPresent(),
                allocatorConflicts(policy),
                seen.previous()),
            IgnoredFields.of(policy),
            generation,
            seen.previous());
    status.driverUpgrade = UpgradeRollout.status(nodes.list().toList(), UpgradeSettings.of(policy));
    PolicyStatusModel.withRemediation(
        status,
        RemediationSettings.of(policy),
        remediationBudget(policy),
        generation,
        seen.previous());
    String refused = null;
    if (checks != null && !gpuNodes.isEmpty()) {
      status.driverPools = checks.poolStatus();
      status.gpuDirect = checks.listedUnmet();
      refused = checks.refusedMessage();
      if (refused != null) {
        PolicyStatusModel.driverRefused(status, generation, refused, seen.previous());
      }
    }
    String refusal = refused;
    return new Pass(
        status,
        changed -> {
          if (changed && refusal != null) {
            LOG.warn("{}", refusal);
            warn(policy, Conditions.DRIVER_INCOMPATIBLE, refusal);
          }
          if (result.applied() + result.deleted() > 0 || changed) {
            LOG.info(
                "applied {}, deleted {}, state {} ({} GPU nodes)",
                result.applied(),
                result.deleted(),
                status.state.value(),
                facts.gpuNodeCount());
          }
          metrics.reconciled(
              status.state == io.gpuoperator.api.common.State.READY
                  ? OperatorMetrics.STATUS_SUCCESS
                  : OperatorMetrics.STATUS_NOT_READY,
              facts.gpuNodeCount(),
              facts.nfdLabelsPresent());
        },
        result.settling());
  }

  /** An invalid spec: a condition naming each violation; the last valid operands keep running. */
  private Pass invalid(ClusterPolicy policy, Observed seen, List<Violation> violations) {
    String message =
        "Invalid ClusterPolicy: "
            + violations.stream().map(Violation::toString).collect(Collectors.joining("; "));
    LOG.warn("{}; operands keep their last valid spec", message);
    List<RenderedOperand> lastGood = lastValid.get(policy.getMetadata().getUid());
    ClusterPolicyStatus status =
        PolicyStatusModel.withIgnoredFields(
            PolicyStatusModel.invalid(
                seen.generation(),
                config.namespace(),
                message,
                lastGood == null ? null : readiness(lastGood),
                seen.previous()),
            IgnoredFields.of(policy),
            seen.generation(),
            seen.previous());
    ClusterFacts facts = seen.facts();
    // A spec error is permanent until the user edits the policy: no retry.
    return new Pass(
        status,
        changed -> {
          if (changed) {
            warn(policy, Conditions.RECONCILE_FAILED, message);
          }
          metrics.reconciled(
              OperatorMetrics.STATUS_NOT_READY, facts.gpuNodeCount(), facts.nfdLabelsPresent());
        });
  }

  @Override
  public ErrorStatusUpdateControl<ClusterPolicy> updateErrorStatus(
      ClusterPolicy policy, Context<ClusterPolicy> context, Exception e) {
    metrics.failed();
    // A refused object in its own words (object, field, reason); anything else on its first line.
    String message =
        "Reconcile failed: "
            + (e instanceof ServerRejection
                ? e.getMessage()
                : ServerRejection.shorten(
                    String.valueOf(e.getMessage()).strip().lines().findFirst().orElse("")));
    long generation = Optional.ofNullable(policy.getMetadata().getGeneration()).orElse(0L);
    ClusterPolicyStatus status =
        PolicyStatusModel.failed(
            generation, config.namespace(), message, statuses.previous(policy));
    try {
      if (statuses.write(policy, status)) {
        warn(policy, Conditions.RECONCILE_FAILED, message);
      }
    } catch (RuntimeException statusError) {
      LOG.warn("cannot record the failure in status: {}", statusError.getMessage());
    }
    return ErrorStatusUpdateControl.noStatusUpdate();
  }

  /** The optional APIs the server serves (see ManagedObjects#served). */
  private Set<String> servedKinds() {
    return ManagedObjects.served(monitoringKinds(), resourceApi, config.openShift());
  }

  /** The monitoring.coreos.com kinds whose CRD is installed. */
  private Set<String> monitoringKinds() {
    Set<String> kinds = new java.util.HashSet<>();
    if (monitoringCrd.list().findAny().isPresent()) {
      kinds.add(ManagedObjects.SERVICE_MONITOR);
    }
    if (ruleCrd.list().findAny().isPresent()) {
      kinds.add(ManagedObjects.PROMETHEUS_RULE);
    }
    return kinds;
  }

  /** The nodes the policy would have both the device plugin and the DRA driver serve, sorted. */
  private List<String> allocatorConflicts(ClusterPolicy policy) {
    return nodes
        .list()
        .filter(n -> NodeLabelRules.allocatorConflict(n, policy))
        .map(n -> n.getMetadata().getName())
        .sorted()
        .toList();
  }

  /**
   * The checks of the driver this policy deploys against its GPU nodes; null when it deploys none
   * (disabled, or run by NVIDIADriver resources).
   */
  private DriverChecks.Result driverChecks(
      ClusterPolicy policy, List<Node> gpuNodes, ClusterFacts facts) {
    if (!Operands.byName(OperandNames.DRIVER).enabled(policy)
        || DriverTransform.byNvidiaDriverResources(policy)) {
      return null;
    }
    return DriverChecks.check(
        DriverChecks.Settings.of(
            policy.getSpec(), DriverChecks.defaultImage(config), DriverChecks.CUDA_DEFAULT),
        gpuNodes,
        DriverCompatibility.shipped(),
        facts.osTags().size() > 1);
  }

  /** The remediation budget over the cached GPU nodes (null when remediation is off). */
  private RemediationBudget remediationBudget(ClusterPolicy policy) {
    RemediationSettings settings = RemediationSettings.of(policy);
    if (!settings.enabled()) {
      return null;
    }
    return RemediationBudget.of(
        settings,
        nodes
            .list()
            .filter(RemediationView::gpuNode)
            .map(n -> RemediationNode.of(n, List.of()))
            .toList());
  }

  private ClusterFacts facts(ClusterPolicy policy) {
    List<Node> all = nodes.list().toList();
    boolean serviceMonitors = monitoringCrd.list().findAny().isPresent();
    ClusterFacts facts =
        NodeFacts.of(all, kubernetesVersion, serviceMonitors)
            .withConfigMapKeys(ConfigMapKeys.read(client, config.namespace(), policy))
            .withResourceApi(resourceApi)
            .withOpenShift(config.openShift());
    return DriverToolkitFacts.observe(facts, policy.getSpec(), client);
  }

  private List<OperandReadiness> readiness(List<RenderedOperand> rendered) {
    List<OperandReadiness> out = new ArrayList<>();
    for (RenderedOperand operand : rendered) {
      if (!operand.enabled()) {
        continue;
      }
      // An agent hosted by node-agents is as ready as the DaemonSet that runs it.
      List<DaemonSet> wanted = operand.daemonSets();
      if (wanted.isEmpty()) {
        out.add(OperandReadiness.noDaemonSet(operand.name()));
        continue;
      }
      boolean ready = true;
      int nodesReady = 0;
      int nodesDesired = 0;
      List<String> reasons = new ArrayList<>();
      for (DaemonSet w : wanted) {
        String ns =
            w.getMetadata().getNamespace() == null
                ? config.namespace()
                : w.getMetadata().getNamespace();
        Optional<DaemonSet> live = daemonSets.get(new ResourceID(w.getMetadata().getName(), ns));
        DaemonSetReadiness.Verdict v;
        if (live.isEmpty()) {
          v =
              new DaemonSetReadiness.Verdict(
                  false, 0, 0, "DaemonSet " + ns + "/" + w.getMetadata().getName() + " missing");
        } else {
          v = LiveReadiness.verdict(client, live.get());
        }
        ready &= v.ready();
        nodesReady += v.nodesReady();
        nodesDesired += v.nodesDesired();
        if (v.reason() != null) {
          reasons.add(v.reason());
        }
      }
      out.add(
          new OperandReadiness(
              operand.name(),
              ready,
              nodesReady,
              nodesDesired,
              reasons.isEmpty() ? null : String.join("; ", reasons)));
    }
    return out;
  }

  /** Records a Warning Event on the policy (only sent along with a status change). */
  private void warn(HasMetadata policy, String reason, String message) {
    events.warning(policy, reason, message);
  }
}
