package io.gpuoperator.node.agent;

import io.gpuoperator.config.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * When a hosted agent of {@code gpu-operator node-agents} runs on its node: the node-label
 * requirements its own DaemonSet would have had (its nodeSelector and required node affinity), in
 * Kubernetes label-selector syntax restricted to {@code key=value} and {@code key!=value}, joined
 * by commas (all must hold). E.g. {@code nvidia.com/gpu.deploy.device-plugin=true}. A label that is
 * absent matches no {@code =} and every {@code !=}, as in Kubernetes.
 */
public record AgentSelector(List<Requirement> requirements) {
  /** One requirement: the label equals (or, with {@code negated}, does not equal) the value. */
  public record Requirement(String key, String value, boolean negated) {
    boolean matches(Map<String, String> labels) {
      boolean equal = value.equals(labels.get(key));
      return negated != equal;
    }

    @Override
    public String toString() {
      return key + (negated ? "!=" : "=") + value;
    }
  }

  public AgentSelector {
    requirements = List.copyOf(requirements);
  }

  /** Every node: no requirement. */
  public static final AgentSelector ALWAYS = new AgentSelector(List.of());

  /**
   * Parses {@code key=value,key!=value}; blank is {@link #ALWAYS}.
   *
   * @throws ConfigException naming the part that is not {@code key=value} or {@code key!=value}
   */
  public static AgentSelector parse(String text) {
    if (text == null || text.isBlank()) {
      return ALWAYS;
    }
    List<Requirement> out = new ArrayList<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      int ne = p.indexOf("!=");
      int eq = p.indexOf('=');
      Requirement r;
      if (ne > 0) {
        r = new Requirement(p.substring(0, ne).trim(), p.substring(ne + 2).trim(), true);
      } else if (eq > 0) {
        String v = p.substring(eq + 1);
        r =
            new Requirement(
                p.substring(0, eq).trim(), (v.startsWith("=") ? v.substring(1) : v).trim(), false);
      } else {
        throw new ConfigException(
            "node selector '" + text + "': '" + p + "' is not key=value or key!=value");
      }
      if (r.key().isEmpty()) {
        throw new ConfigException("node selector '" + text + "': '" + p + "' has no label key");
      }
      out.add(r);
    }
    return new AgentSelector(out);
  }

  /** Whether a node with these labels runs the agent. */
  public boolean matches(Map<String, String> labels) {
    Objects.requireNonNull(labels, "labels");
    return requirements.stream().allMatch(r -> r.matches(labels));
  }

  @Override
  public String toString() {
    return String.join(",", requirements.stream().map(Requirement::toString).toList());
  }
}
