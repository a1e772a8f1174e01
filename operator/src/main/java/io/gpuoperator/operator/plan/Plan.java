package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.NodeLabelChange;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.DaemonSets;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the operator would do for a policy: the object diff per operand and, per node, the labels
 * and taint it would carry. Pure: inputs are the policy, nodes, facts and live objects.
 *
 * @param operands every operand as rendered, in deployment order
 * @param objects the object diff, in deployment order (deletes last)
 * @param nodes one entry per node, in input order
 */
public record Plan(
    ClusterPolicy policy,
    ClusterFacts facts,
    List<RenderedOperand> operands,
    List<ObjectDiff.Entry> objects,
    List<NodeEntry> nodes) {

  /**
   * One node's outcome.
   *
   * @param runs the operand DaemonSets whose pods the node would run after the change
   * @param blocked DaemonSets selected by the node's labels whose pods a taint keeps away, with the
   *     taint
   */
  public record NodeEntry(
      String name,
      NodeLabelRules.Desired desired,
      NodeLabelChange change,
      List<String> runs,
      List<String> blocked) {}

  /** Tolerations the DaemonSet controller adds to every daemon pod (hostNetwork aside). */
  static final List<Toleration> DAEMON_POD_TOLERATIONS =
      List.of(
          exists("node.kubernetes.io/not-ready", "NoExecute"),
          exists("node.kubernetes.io/unreachable", "NoExecute"),
          exists("node.kubernetes.io/disk-pressure", "NoSchedule"),
          exists("node.kubernetes.io/memory-pressure", "NoSchedule"),
          exists("node.kubernetes.io/pid-pressure", "NoSchedule"),
          exists("node.kubernetes.io/unschedulable", "NoSchedule"));

  private static Toleration exists(String key, String effect) {
    return new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build();
  }

  /**
   * Builds the plan.
   *
   * @throws io.gpuoperator.operator.validation.PolicyValidationException when the policy cannot be
   *     rendered
   */
  public static Plan build(
      ClusterPolicy policy,
      Collection<Node> nodes,
      ClusterFacts facts,
      OperatorConfig config,
      Collection<HasMetadata> live) {
    List<RenderedOperand> rendered = Operands.renderAll(policy, facts, config);
    List<ObjectDiff.Entry> diff = ObjectDiff.diff(rendered, live);
    List<NodeEntry> nodeEntries = new ArrayList<>();
    List<DaemonSet> daemonSets =
        rendered.stream()
            .flatMap(o -> o.objects().stream())
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .toList();
    for (Node n : nodes) {
      NodeLabelChange change = NodeLabelRules.change(n, policy);
      Map<String, String> labels = new HashMap<>();
      if (n.getMetadata().getLabels() != null) {
        labels.putAll(n.getMetadata().getLabels());
      }
      labels.putAll(change.labelsToSet());
      change.labelsToRemove().forEach(labels::remove);
      List<Taint> taints =
          change.taints() != null
              ? change.taints()
              : n.getSpec() == null || n.getSpec().getTaints() == null
                  ? List.of()
                  : n.getSpec().getTaints();
      List<String> runs = new ArrayList<>();
      List<String> blocked = new ArrayList<>();
      for (DaemonSet ds : daemonSets) {
        var pod = ds.getSpec().getTemplate().getSpec();
        var selector =
            pod.getNodeSelector() == null ? Map.<String, String>of() : pod.getNodeSelector();
        if (!selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())))
            || !affinityAdmits(pod, labels)) {
          continue;
        }
        // Any NoSchedule or NoExecute taint the pods do not tolerate keeps them off the node,
        // counting the tolerations the DaemonSet controller adds to every daemon pod.
        Taint blocking =
            taints.stream()
                .filter(t -> !"PreferNoSchedule".equals(t.getEffect()))
                .filter(t -> !DaemonSets.tolerates(pod.getTolerations(), t))
                .filter(t -> !DaemonSets.tolerates(DAEMON_POD_TOLERATIONS, t))
                .findFirst()
                .orElse(null);
        if (blocking == null) {
          runs.add(ds.getMetadata().getName());
        } else {
          blocked.add(
              ds.getMetadata().getName() + " (taint " + NodeLabelRules.format(blocking) + ")");
        }
      }
      nodeEntries.add(
          new NodeEntry(
              n.getMetadata().getName(), NodeLabelRules.desired(n, policy), change, runs, blocked));
    }
    return new Plan(policy, facts, rendered, diff, nodeEntries);
  }

  /** Number of entries with the action. */
  public long count(ObjectDiff.Action action) {
    return objects.stream().filter(e -> e.action() == action).count();
  }

  /**
   * Whether the pod's required node affinity admits a node with these labels: some term whose
   * In/NotIn/Exists/DoesNotExist expressions all hold (the node-agents DaemonSet's one term per
   * hosted agent, the DRA plugin's exclusion of device-plugin nodes).
   */
  static boolean affinityAdmits(
      io.fabric8.kubernetes.api.model.PodSpec pod, Map<String, String> labels) {
    var a = pod.getAffinity();
    if (a == null
        || a.getNodeAffinity() == null
        || a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return true;
    }
    var terms =
        a.getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    return terms.stream()
        .anyMatch(
            t ->
                (t.getMatchExpressions() == null
                        ? List.<io.fabric8.kubernetes.api.model.NodeSelectorRequirement>of()
                        : t.getMatchExpressions())
                    .stream()
                        .allMatch(
                            r -> {
                              String v = labels.get(r.getKey());
                              List<String> values =
                                  r.getValues() == null ? List.of() : r.getValues();
                              return switch (r.getOperator()) {
                                case "In" -> v != null && values.contains(v);
                                case "NotIn" -> v == null || !values.contains(v);
                                case "Exists" -> v != null;
                                case "DoesNotExist" -> v == null;
                                default -> true;
                              };
                            }));
  }
}
