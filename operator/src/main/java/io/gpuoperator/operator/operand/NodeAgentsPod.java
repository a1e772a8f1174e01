package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * How {@link NodeAgentsModel} merges the hosted agents' pod specs into the node-agents pod: init
 * containers and volumes one per name, the union of tolerations and pull secrets, scheduled where
 * any hosted agent would be, host namespaces when any agent uses them.
 */
final class NodeAgentsPod {
  private NodeAgentsPod() {}

  /** The init containers in the agents' order, one per name (the first agent's). */
  static List<Container> initContainers(List<PodSpec> pods) {
    Map<String, Container> out = new LinkedHashMap<>();
    for (PodSpec p : pods) {
      if (p.getInitContainers() != null) {
        p.getInitContainers().forEach(c -> out.putIfAbsent(c.getName(), Serialization.clone(c)));
      }
    }
    return out.isEmpty() ? null : new ArrayList<>(out.values());
  }

  /** The volumes some container of the pod mounts, one per name. */
  static List<Volume> volumes(List<PodSpec> pods, PodSpec pod) {
    Set<String> used = new LinkedHashSet<>();
    for (Container c : DaemonSets.allContainers(pod)) {
      if (c.getVolumeMounts() != null) {
        c.getVolumeMounts().forEach(m -> used.add(m.getName()));
      }
    }
    Map<String, Volume> out = new LinkedHashMap<>();
    for (PodSpec p : pods) {
      for (Volume v : p.getVolumes() == null ? List.<Volume>of() : p.getVolumes()) {
        if (!used.contains(v.getName())) {
          continue;
        }
        Volume have = out.putIfAbsent(v.getName(), v);
        if (have != null && !have.equals(v)) {
          throw new IllegalStateException(
              "node-agents: two agents declare volume " + v.getName() + " differently");
        }
      }
    }
    return new ArrayList<>(out.values());
  }

  /** Every toleration of the agents, in their order, each once; null when none has any. */
  static List<Toleration> tolerations(List<PodSpec> pods) {
    return union(pods, PodSpec::getTolerations);
  }

  /** Every image pull secret of the agents, in their order, each once; null when none has any. */
  static List<LocalObjectReference> pullSecrets(List<PodSpec> pods) {
    return union(pods, PodSpec::getImagePullSecrets);
  }

  private static <T> List<T> union(List<PodSpec> pods, Function<PodSpec, List<T>> list) {
    Set<T> out = new LinkedHashSet<>();
    for (PodSpec p : pods) {
      List<T> items = list.apply(p);
      if (items != null) {
        out.addAll(items);
      }
    }
    return out.isEmpty() ? null : new ArrayList<>(out);
  }

  /**
   * Scheduled where any hosted agent would be: one term per agent with its nodeSelector (terms are
   * ORed); the supervisor applies each agent's full requirements on the node.
   */
  static Affinity affinity(List<PodSpec> pods) {
    List<NodeSelectorTerm> terms = new ArrayList<>();
    for (PodSpec p : pods) {
      List<NodeSelectorRequirement> reqs = new ArrayList<>();
      if (p.getNodeSelector() != null) {
        new java.util.TreeMap<>(p.getNodeSelector())
            .forEach(
                (k, v) ->
                    reqs.add(
                        new NodeSelectorRequirementBuilder()
                            .withKey(k)
                            .withOperator("In")
                            .withValues(v)
                            .build()));
      }
      NodeSelectorTerm t = new NodeSelectorTerm(reqs, null);
      if (!terms.contains(t)) {
        terms.add(t);
      }
    }
    NodeAffinity node = new NodeAffinity();
    node.setRequiredDuringSchedulingIgnoredDuringExecution(new NodeSelector(terms));
    Affinity a = new Affinity();
    a.setNodeAffinity(node);
    return a;
  }

  static Boolean anyTrue(List<Boolean> values) {
    return values.stream().anyMatch(Boolean.TRUE::equals) ? Boolean.TRUE : null;
  }
}
