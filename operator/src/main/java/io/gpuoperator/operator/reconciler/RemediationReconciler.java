package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.WrittenNodes;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.metrics.OperatorMetrics;
import io.gpuoperator.operator.remediation.NodeRemediation;
import io.gpuoperator.operator.remediation.RemediationBudget;
import io.gpuoperator.operator.remediation.RemediationNode;
import io.gpuoperator.operator.remediation.RemediationPatch;
import io.gpuoperator.operator.remediation.RemediationSettings;
import io.gpuoperator.operator.remediation.RemediationState;
import io.gpuoperator.operator.remediation.RemediationStep;
import io.gpuoperator.operator.remediation.RemediationView;
import io.gpuoperator.operator.upgrade.KubernetesNodeActions;
import io.gpuoperator.operator.upgrade.NodeActions;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU fault remediation (issue 34, not in the original): acts on the GPU fault conditions the
 * device and DRA plugins write on Nodes, only while the active ClusterPolicy's {@code
 * spec.remediation.enabled} is true. One work item for the cluster, since the limits are
 * cluster-wide: each pass reads the cached GPU nodes (slimmed to {@link RemediationView}) and
 * validator pods, counts them against maxConcurrent and the circuit breaker ({@link
 * RemediationBudget}), and moves every node along its ladder ({@link NodeRemediation}) as far as it
 * goes without waiting, each move one node patch and one Event on the node. With dryRun it writes
 * nothing and tells, once per node and step, what it would do. Turned off, it gives back what it
 * took. The ClusterPolicy's {@code RemediationPaused} condition is written by the policy's own
 * reconciler from the same budget.
 */
public class RemediationReconciler implements Reconciler<ClusterPolicy> {
  private static final Logger LOG = LoggerFactory.getLogger(RemediationReconciler.class);
  static final String NODES = "remediation-nodes";
  static final String VALIDATORS = "remediation-validators";
  private static final int MAX_STEPS = RemediationState.values().length;
  private static final Duration RETRY = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final OperatorConfig config;
  private final OperatorMetrics metrics;
  private final Clock clock;
  private final NodeActions actions;
  private final EventRecorder events;

  /** What a dry run already told, node/fault/step, so each is told once. */
  private final Set<String> told = ConcurrentHashMap.newKeySet();

  /** The node as our last patch returned it, while the cache still shows an older one. */
  private final WrittenNodes written;

  private volatile IndexerResourceCache<ClusterPolicy> policies;
  private final SharedNodes sharedNodes;
  private volatile SharedNodes.Events<ClusterPolicy> nodes;
  private volatile InformerEventSource<Pod, ClusterPolicy> validators;

  public RemediationReconciler(
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
    this.actions = new KubernetesNodeActions(client);
    this.events = new EventRecorder(client);
    this.written = new WrittenNodes(client);
  }

  @Override
  public List<EventSource<?, ClusterPolicy>> prepareEventSources(
      EventSourceContext<ClusterPolicy> context) {
    policies = context.getPrimaryCache();
    nodes = sharedNodes.events(NODES, context, RemediationView::changed);
    validators =
        Watch.of(Pod.class, VALIDATORS, context)
            .in(config.namespace())
            .labelled(Labels.APP + "=" + UpgradeKeys.VALIDATOR_APP)
            .allPrimaries();
    return List.of(nodes, validators);
  }

  @Override
  public UpdateControl<ClusterPolicy> reconcile(
      ClusterPolicy policy, Context<ClusterPolicy> context) {
    if (!ActivePolicy.isActive(policy, policies.list().toList())) {
      return UpdateControl.noUpdate();
    }
    Duration recheck = pass(RemediationSettings.of(policy));
    UpdateControl<ClusterPolicy> control = UpdateControl.noUpdate();
    return recheck == null ? control : control.rescheduleAfter(recheck);
  }

  /** One pass over every GPU node; returns when to pass again (null: on events). */
  synchronized Duration pass(RemediationSettings settings) {
    Map<String, List<Pod>> validatorsByNode =
        validators
            .list()
            .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
            .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName()));
    List<Node> gpuNodes = new ArrayList<>();
    for (Node cached : nodes.list().toList()) {
      Node n = written.freshest(cached);
      if (RemediationView.gpuNode(n)) {
        gpuNodes.add(n);
      }
    }
    written.retainOnly(gpuNodes.stream().map(n -> n.getMetadata().getName()).toList());
    List<RemediationNode> views =
        gpuNodes.stream()
            .map(
                n ->
                    RemediationNode.of(
                        n, validatorsByNode.getOrDefault(n.getMetadata().getName(), List.of())))
            .sorted(Comparator.comparing(RemediationNode::name))
            .toList();
    Map<String, Node> byName =
        gpuNodes.stream().collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    if (!settings.enabled()) {
      for (RemediationNode v : views) {
        RemediationStep giveBack = NodeRemediation.abandon(v);
        if (giveBack != null) {
          writeQuietly(byName.get(v.name()), v, giveBack);
        }
      }
      metrics.remediation(false, Map.of(), false);
      return null;
    }
    RemediationBudget budget = RemediationBudget.of(settings, views);
    NodeRemediation machine = new NodeRemediation(settings, actions, clock.instant());
    int startable = budget.startable();
    Duration recheck = null;
    Map<RemediationState, Integer> states = new EnumMap<>(RemediationState.class);
    // Nodes already on the ladder first, so that they go on whatever the budget says.
    List<RemediationNode> order = new ArrayList<>(views);
    order.sort(Comparator.comparing((RemediationNode v) -> !v.state().inProgress()));
    for (RemediationNode v : order) {
      boolean mayStart = false;
      if (!v.state().inProgress()
          && v.faulty()
          && startable > 0
          && machine.coolingUntil(v) == null) {
        mayStart = true;
      }
      Advance a =
          advance(
              byName.get(v.name()), v, mayStart, budget.breakerOpen(), machine, settings.dryRun());
      if (a.started()) {
        startable--;
      }
      states.merge(a.state(), 1, Integer::sum);
      recheck = earliest(recheck, a.recheck());
    }
    if (budget.breakerOpen()) {
      LOG.warn("GPU fault remediation paused: {}", budget.describe());
    }
    metrics.remediation(true, states, budget.breakerOpen());
    return recheck;
  }

  private record Advance(RemediationState state, Duration recheck, boolean started) {}

  /** Moves one node as far as it goes now. */
  private Advance advance(
      Node node,
      RemediationNode v,
      boolean mayStart,
      boolean breakerOpen,
      NodeRemediation machine,
      boolean dryRun) {
    RemediationState from = v.state();
    try {
      for (int i = 0; i < MAX_STEPS; i++) {
        RemediationStep step = machine.step(v, mayStart, breakerOpen);
        if (!step.moves()) {
          if (step.waiting() != null) {
            LOG.debug("Node {}: {}", v.name(), step.waiting());
          }
          return new Advance(
              v.state(), step.recheck(), !from.inProgress() && v.state().inProgress());
        }
        if (dryRun) {
          String key = v.name() + "/" + v.fault() + "/" + step.to();
          if (told.add(key)) {
            events.normal(
                node,
                "GpuRemediationDryRun",
                "dry run, nothing changed: would move to "
                    + step.to().label()
                    + ": "
                    + step.message());
            LOG.info("Node {}: dry run: would move to {}", v.name(), step.to().label());
          }
          return new Advance(v.state(), null, mayStart);
        }
        Node after = write(node, v, step);
        node = after;
        v = RemediationNode.of(after, List.of()).withValidator(v);
      }
      return new Advance(v.state(), Duration.ZERO, !from.inProgress());
    } catch (KubernetesClientException e) {
      // One node's trouble (a conflicting taint write, an API error) never stops the others.
      LOG.warn("Node {}: remediation step failed, retrying: {}", v.name(), e.getMessage());
      return new Advance(v.state(), RETRY, false);
    }
  }

  private void writeQuietly(Node node, RemediationNode v, RemediationStep step) {
    try {
      write(node, v, step);
    } catch (KubernetesClientException e) {
      LOG.warn("Node {}: giving the node back failed, retrying: {}", v.name(), e.getMessage());
    }
  }

  /** Writes a step in one merge patch, records its Event and counts it; the node after it. */
  private Node write(Node node, RemediationNode v, RemediationStep step) {
    Node result;
    try {
      result =
          written.patch(
              v.name(), RemediationPatch.of(v, step, node.getMetadata().getResourceVersion()));
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      // The node changed since the cache saw it (its kubelet writes status every few seconds):
      // the step stands, only the taint list is taken again from the node as it is now.
      Node fresh = client.nodes().withName(v.name()).get();
      result =
          written.patch(
              v.name(),
              RemediationPatch.of(
                  RemediationNode.of(fresh, List.of()),
                  step,
                  fresh.getMetadata().getResourceVersion()));
    }
    String fault =
        v.fault() != null
            ? v.fault()
            : v.annotations().get(io.gpuoperator.operator.remediation.RemediationKeys.FAULT);
    LOG.info(
        "Node {}: GPU remediation {} -> {} ({})",
        v.name(),
        label(v.state()),
        label(step.to()),
        step.message());
    if (step.reason() != null) {
      if (step.warning()) {
        events.warning(result, step.reason(), step.message());
      } else {
        events.normal(result, step.reason(), step.message());
      }
    }
    metrics.remediationAction(fault == null ? "none" : fault, label(step.to()));
    return result;
  }

  private static String label(RemediationState s) {
    return s == RemediationState.NONE ? "none" : s.label();
  }

  private static Duration earliest(Duration a, Duration b) {
    if (a == null) {
      return b;
    }
    return b == null || a.compareTo(b) <= 0 ? a : b;
  }
}
