package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.WrittenNodes;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.driver.DriverOwners;
import io.gpuoperator.operator.driver.NvidiaDriverModel;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.metrics.OperatorMetrics;
import io.gpuoperator.operator.operand.DriverTransform;
import io.gpuoperator.operator.upgrade.DriverPod;
import io.gpuoperator.operator.upgrade.KubernetesNodeActions;
import io.gpuoperator.operator.upgrade.NodeActions;
import io.gpuoperator.operator.upgrade.NodePatch;
import io.gpuoperator.operator.upgrade.NodeUpgrade;
import io.gpuoperator.operator.upgrade.Step;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeNode;
import io.gpuoperator.operator.upgrade.UpgradeRollout;
import io.gpuoperator.operator.upgrade.UpgradeSettings;
import io.gpuoperator.operator.upgrade.UpgradeState;
import io.gpuoperator.operator.upgrade.UpgradeViews;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolls a changed driver out node by node ({@link NodeUpgrade}, limits and waves from {@link
 * UpgradeRollout}). One work item for the cluster, since the limits are cluster-wide: each pass
 * reads the cached nodes, driver pods, their DaemonSets and ControllerRevisions and the validator
 * pods (all label-selected; other pods are listed live, per node, only while that node evicts), and
 * moves every node as far as it can go without waiting. Passes run on events and, while some node
 * waits on something not watched (pods terminating, a disruption budget, a timeout), every two
 * seconds or so. While no ClusterPolicy exists, the {@link NvidiaDriverUpgradeReconciler} runs the
 * same pass for the NVIDIADriver resources on their own.
 */
public class DriverUpgradeReconciler implements Reconciler<ClusterPolicy> {
  private static final Logger LOG = LoggerFactory.getLogger(DriverUpgradeReconciler.class);

  /** Longest chain of transitions one node makes in one pass. */
  private static final int MAX_STEPS = UpgradeState.values().length;

  /** A failed write is retried after this long (other nodes carry on). */
  private static final Duration RETRY = Duration.ofSeconds(5);

  /** Groups up to this size are stepped one node after another. */
  static final int SERIAL_UP_TO = 50;

  /**
   * Nodes stepped at once in larger groups (16 held 16 threads while 1,000 nodes were labelled).
   */
  static final int PARALLEL_NODES = 8;

  /** Started on the first large rollout; idle between rollouts (16 threads kept forever before). */
  private static final java.util.concurrent.ExecutorService NODE_STEPS =
      io.gpuoperator.operator.runtime.ThreadPools.bounded("driver-upgrade-node", PARALLEL_NODES);

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final NodeActions actions;
  private final EventRecorder events;

  /**
   * The node as our last patch returned it, by name: while the cache still shows an older version,
   * the pass works from this one, so that no step is taken twice and no slot is given out twice.
   */
  private final WrittenNodes written;

  /**
   * Driver pods this process deleted whose deletion the cache has not shown yet, by UID: they count
   * as terminating, so no pass deletes them twice.
   */
  private final Set<String> deleted = ConcurrentHashMap.newKeySet();

  private volatile IndexerResourceCache<ClusterPolicy> policies;
  private volatile UpgradeCaches<ClusterPolicy> caches;
  private final SharedNodes sharedNodes;

  public DriverUpgradeReconciler(
      KubernetesClient client,
      OperatorConfig config,
      OperatorMetrics metrics,
      Clock clock,
      SharedNodes sharedNodes) {
    this.client = client;
    this.sharedNodes = sharedNodes;
    this.config = config;
    this.metrics = metrics;
    this.clock = clock;
    NodeActions api = new KubernetesNodeActions(client);
    this.actions =
        new NodeActions() {
          @Override
          public List<Pod> podsOn(String node, String labelSelector) {
            return api.podsOn(node, labelSelector);
          }

          @Override
          public Eviction evict(Pod pod) {
            return api.evict(pod);
          }

          @Override
          public void deleteDriverPod(DriverPod pod) {
            api.deleteDriverPod(pod);
            deleted.add(pod.uid());
          }
        };
    this.events = new EventRecorder(client);
    this.written = new WrittenNodes(client);
  }

  @Override
  public List<EventSource<?, ClusterPolicy>> prepareEventSources(
      EventSourceContext<ClusterPolicy> context) {
    policies = context.getPrimaryCache();
    caches = UpgradeCaches.watch(context, config.namespace(), sharedNodes);
    return caches.sources();
  }

  /** The operator's Node cache, which the NVIDIADriver upgrade controller reads too. */
  SharedNodes sharedNodes() {
    return sharedNodes;
  }

  /** Whether an object is a driver DaemonSet (of any pool, ClusterPolicy's or NVIDIADriver's). */
  static boolean isDriver(HasMetadata o) {
    Map<String, String> l = o.getMetadata().getLabels();
    return o instanceof DaemonSet
        && l != null
        && UpgradeKeys.DRIVER_COMPONENT.equals(l.get(UpgradeKeys.COMPONENT));
  }

  /** Node changes that matter to the upgrade: labels, upgrade annotations, cordon, Ready. */
  static boolean nodeChanged(Node a, Node b) {
    return !Objects.equals(a.getMetadata().getLabels(), b.getMetadata().getLabels())
        || !Objects.equals(upgradeAnnotations(a), upgradeAnnotations(b))
        || UpgradeViews.unschedulable(a) != UpgradeViews.unschedulable(b)
        || UpgradeViews.ready(a) != UpgradeViews.ready(b);
  }

  private static Map<String, String> upgradeAnnotations(Node n) {
    Map<String, String> a = n.getMetadata().getAnnotations();
    if (a == null) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    a.forEach(
        (k, v) -> {
          if (k.startsWith("nvidia.com/gpu-driver-upgrade")) {
            out.put(k, v);
          }
        });
    return out;
  }

  /**
   * A driver whose DaemonSets roll out under one upgrade policy: the ClusterPolicy's, or one
   * NVIDIADriver's (with {@code useNvidiaDriverCRD}), whose limits count its own nodes only.
   */
  record Owner(String uid, String name, UpgradeSettings settings) {}

  @Override
  public UpdateControl<ClusterPolicy> reconcile(
      ClusterPolicy policy, Context<ClusterPolicy> context) {
    if (!ActivePolicy.isActive(policy, policies.list().toList())) {
      return UpdateControl.noUpdate();
    }
    Duration recheck = pass(policy, caches);
    UpdateControl<ClusterPolicy> control = UpdateControl.noUpdate();
    return recheck == null ? control : control.rescheduleAfter(recheck);
  }

  /**
   * One pass over every driver's nodes: those of the active ClusterPolicy's driver and, with {@code
   * useNvidiaDriverCRD}, of each NVIDIADriver; with a null policy (none exists), of the
   * NVIDIADriver resources on their own. Returns when to pass again (null: on events). One pass at
   * a time, whichever controller runs it, so that no node step or slot is taken twice.
   */
  synchronized Duration pass(ClusterPolicy policy, UpgradeCaches<?> caches) {
    Map<String, Owner> owners = owners(policy, caches);
    Map<String, List<UpgradeNode>> groups =
        views(owners, policy == null ? null : policy.getMetadata().getUid(), caches);
    Duration recheck = null;
    int inProgress = 0;
    int done = 0;
    int failed = 0;
    int pending = 0;
    int startable = 0;
    boolean any = false;
    for (Owner owner : owners.values()) {
      List<UpgradeNode> group = groups.getOrDefault(owner.uid(), List.of());
      UpgradeSettings settings = owner.settings();
      if (!settings.autoUpgrade()) {
        for (UpgradeNode n : group) {
          Step abandon = NodeUpgrade.abandon(n);
          if (abandon != null) {
            write(n, abandon);
          }
        }
        continue;
      }
      any = true;
      UpgradeRollout rollout = UpgradeRollout.plan(group, settings);
      NodeUpgrade machine = new NodeUpgrade(settings, actions, clock.instant());
      for (Duration next : advanceAll(group, rollout, machine)) {
        recheck = earliest(recheck, next);
      }
      var st = rollout.status();
      inProgress += st.inProgress == null ? 0 : st.inProgress;
      done += st.done == null ? 0 : st.done;
      failed += st.failed == null ? 0 : st.failed;
      pending += st.pending == null ? 0 : st.pending;
      startable += rollout.startable().size();
    }
    metrics.upgrades(any, inProgress, done, failed, pending, startable);
    return recheck;
  }

  /**
   * The drivers whose DaemonSets this pass upgrades, by owner UID, the policy first: the policy's
   * own, and with {@code useNvidiaDriverCRD} every NVIDIADriver (each with its upgradePolicy);
   * without a policy, every NVIDIADriver (with the policy settings' defaults).
   */
  private static Map<String, Owner> owners(ClusterPolicy policy, UpgradeCaches<?> caches) {
    Map<String, Owner> out = new java.util.LinkedHashMap<>();
    if (policy != null) {
      out.put(
          policy.getMetadata().getUid(),
          new Owner(
              policy.getMetadata().getUid(),
              policy.getMetadata().getName(),
              UpgradeSettings.of(policy)));
    }
    ClusterPolicy settings = policy == null ? NvidiaDriverModel.standalone() : policy;
    if (DriverTransform.byNvidiaDriverResources(settings)) {
      caches
          .drivers()
          .list()
          .sorted(java.util.Comparator.comparing(d -> d.getMetadata().getName()))
          .forEach(
              d ->
                  out.put(
                      d.getMetadata().getUid(),
                      new Owner(
                          d.getMetadata().getUid(),
                          d.getMetadata().getName(),
                          NvidiaDriverModel.upgradeSettings(d, settings))));
    }
    return out;
  }

  /**
   * Moves every node of a group as far as it goes now; returns when to look at each again. Above
   * {@value #SERIAL_UP_TO} nodes, {@value #PARALLEL_NODES} nodes at a time: each step is a node
   * patch, and on a large cluster's first rollout (every node to {@code upgrade-done}) one patch
   * after another took minutes (750 GPU nodes, a busy API server: about one a second). Nodes are
   * independent (the rollout's plan above already decided which may start); a small group stays in
   * order, so its log reads node by node.
   */
  private List<Duration> advanceAll(
      List<UpgradeNode> group, UpgradeRollout rollout, NodeUpgrade machine) {
    if (group.size() <= SERIAL_UP_TO) {
      List<Duration> out = new java.util.ArrayList<>();
      for (UpgradeNode n : group) {
        out.add(advanceQuietly(n, rollout, machine));
      }
      return out;
    }
    List<java.util.concurrent.Future<Duration>> futures = new java.util.ArrayList<>();
    for (UpgradeNode n : group) {
      futures.add(NODE_STEPS.submit(() -> advanceQuietly(n, rollout, machine)));
    }
    List<Duration> out = new java.util.ArrayList<>();
    for (java.util.concurrent.Future<Duration> f : futures) {
      try {
        out.add(f.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.add(RETRY);
      } catch (java.util.concurrent.ExecutionException e) {
        LOG.warn("driver upgrade step failed, retrying: {}", e.getCause().toString());
        out.add(RETRY);
      }
    }
    return out;
  }

  private Duration advanceQuietly(UpgradeNode n, UpgradeRollout rollout, NodeUpgrade machine) {
    try {
      return advance(n, rollout.startable().contains(n.name()), machine);
    } catch (KubernetesClientException e) {
      // One node's trouble (NotReady kubelet, API error) never stops the others.
      LOG.warn("Node {}: driver upgrade step failed, retrying: {}", n.name(), e.getMessage());
      return RETRY;
    }
  }

  /** Moves one node as far as it goes now; returns when to look at it again (null: on events). */
  private Duration advance(UpgradeNode n, boolean mayStart, NodeUpgrade machine) {
    UpgradeNode node = n;
    if (!node.annotations().containsKey(UpgradeKeys.ENABLED) && node.driver() != null) {
      node = write(node, Step.to(node.state()).annotate(UpgradeKeys.ENABLED, Labels.TRUE).build());
    }
    for (int i = 0; i < MAX_STEPS; i++) {
      Step step = machine.step(node, mayStart);
      if (step.writes()) {
        node = write(node, step);
      }
      if (!step.moves()) {
        if (step.waiting() != null) {
          LOG.debug("Node {}: {}", node.name(), step.waiting());
        }
        return step.recheck();
      }
      if (step.failure() != null) {
        return null;
      }
    }
    return Duration.ZERO;
  }

  /** Writes a step's node changes in one merge patch; the node after it. */
  private UpgradeNode write(UpgradeNode n, Step step) {
    Node result = written.patch(n.name(), NodePatch.of(step));
    UpgradeState from = n.state();
    if (step.to() != null && step.to() != from) {
      LOG.info("Node {}: driver upgrade {} -> {}", n.name(), label(from), label(step.to()));
    }
    if (step.failure() != null) {
      LOG.warn("Node {}: driver upgrade failed: {}", n.name(), step.failure());
      events.warning(result, "DriverUpgradeFailed", step.failure());
    }
    return n.with(step);
  }

  private static String label(UpgradeState s) {
    return s == UpgradeState.UNKNOWN ? "(none)" : s.label();
  }

  private static Duration earliest(Duration a, Duration b) {
    if (a == null) {
      return b;
    }
    return b == null || a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * The nodes of each driver, by owner UID: those running a pod of a driver DaemonSet it owns,
   * those running an orphaned driver pod (its DaemonSet deleted when the driver was renamed or
   * handed to NVIDIADriver resources) that one of its DaemonSets now selects, and those still
   * carrying upgrade state (e.g. while their driver pod is being replaced).
   */
  private Map<String, List<UpgradeNode>> views(
      Map<String, Owner> owners, String policyUid, UpgradeCaches<?> caches) {
    Map<String, DaemonSet> ownedDs = new HashMap<>();
    caches
        .daemonSets()
        .list()
        .filter(ds -> owners.containsKey(UpgradeViews.controller(ds)))
        .forEach(ds -> ownedDs.put(ds.getMetadata().getUid(), ds));
    List<ControllerRevision> revs = caches.revisions().list().toList();
    Map<String, DriverPod> driverByNode = new HashMap<>();
    Map<String, String> ownerByNode = new HashMap<>();
    List<Pod> pods = caches.driverPods().list().toList();
    Set<String> live = new java.util.HashSet<>();
    pods.stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .forEach(p -> live.add(p.getMetadata().getUid()));
    deleted.retainAll(live);
    Map<String, Node> nodeByName = new HashMap<>();
    for (Node cached : caches.nodes().list().toList()) {
      Node node = written.freshest(cached);
      nodeByName.put(node.getMetadata().getName(), node);
    }
    for (Pod p : pods) {
      if (p.getSpec() == null || p.getSpec().getNodeName() == null) {
        continue;
      }
      String nodeName = p.getSpec().getNodeName();
      DaemonSet ds = ownedDs.get(UpgradeViews.owner(p));
      DriverPod d;
      if (ds != null) {
        d = UpgradeViews.driverPod(p, ds, revs);
      } else if (UpgradeViews.owner(p) == null && nodeByName.containsKey(nodeName)) {
        ds = selecting(ownedDs.values(), nodeByName.get(nodeName));
        if (ds == null) {
          continue;
        }
        d = UpgradeViews.orphan(p, ds);
      } else {
        continue;
      }
      if (deleted.contains(d.uid())) {
        d = d.deleted();
      }
      DriverPod before = driverByNode.get(nodeName);
      if (before == null || prefer(d, before)) {
        driverByNode.put(nodeName, d);
        ownerByNode.put(nodeName, UpgradeViews.controller(ds));
      }
    }
    Map<String, List<Pod>> validatorByNode =
        caches
            .validators()
            .list()
            .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
            .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName()));
    Map<String, String> uidByName = new HashMap<>();
    owners.values().forEach(o -> uidByName.put(o.name(), o.uid()));
    Map<String, List<UpgradeNode>> out = new HashMap<>();
    Set<String> seen = new java.util.HashSet<>();
    for (Node node : nodeByName.values()) {
      String name = node.getMetadata().getName();
      DriverPod driver = driverByNode.get(name);
      Map<String, String> labels = node.getMetadata().getLabels();
      Map<String, String> annotations = node.getMetadata().getAnnotations();
      boolean tracked =
          (labels != null && labels.containsKey(UpgradeKeys.STATE))
              || (annotations != null && annotations.containsKey(UpgradeKeys.ENABLED));
      if (driver == null && !tracked) {
        continue;
      }
      String owner = ownerByNode.get(name);
      if (owner == null) {
        // Between driver pods: the NVIDIADriver the node is assigned to, else the policy.
        String assigned = labels == null ? null : labels.get(DriverOwners.OWNER);
        owner =
            assigned != null && uidByName.containsKey(assigned)
                ? uidByName.get(assigned)
                : policyUid;
        if (owner == null) {
          continue; // no policy, and no resource has the node
        }
      }
      seen.add(name);
      List<Pod> v = validatorByNode.getOrDefault(name, List.of());
      out.computeIfAbsent(owner, k -> new ArrayList<>())
          .add(
              UpgradeViews.node(
                  node,
                  driver,
                  !v.isEmpty(),
                  v.stream()
                      .anyMatch(
                          p ->
                              p.getMetadata().getDeletionTimestamp() == null
                                  && UpgradeViews.podReady(p))));
    }
    written.retainOnly(seen);
    return out;
  }

  /**
   * Which of two driver pods on one node the upgrade acts on: a live one over a terminating one,
   * and an orphan over its successor (the successor waits, unschedulable beside it, until the
   * orphan is replaced).
   */
  private static boolean prefer(DriverPod a, DriverPod b) {
    if (a.terminating() != b.terminating()) {
      return b.terminating();
    }
    return UpgradeKeys.ORPHANED_REVISION.equals(a.latestRevision())
        && !UpgradeKeys.ORPHANED_REVISION.equals(b.latestRevision());
  }

  /** The first driver DaemonSet (by name) whose node selector the node's labels satisfy. */
  private static DaemonSet selecting(Collection<DaemonSet> all, Node node) {
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    return all.stream()
        .filter(
            ds -> {
              Map<String, String> sel = ds.getSpec().getTemplate().getSpec().getNodeSelector();
              return sel == null
                  || sel.entrySet().stream()
                      .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
            })
        .min(java.util.Comparator.comparing(ds -> ds.getMetadata().getName()))
        .orElse(null);
  }
}
