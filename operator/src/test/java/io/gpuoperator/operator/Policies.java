package io.gpuoperator.operator;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Policies, facts and configuration shared by the operator's unit tests. */
public final class Policies {
  public static final String SAMPLE = "/io/gpuoperator/api/samples/clusterpolicy.yaml";

  /**
   * The DaemonSets of the original's default install, by the original's names: what its chart's
   * defaults and the documentation sample (which mirrors them) render. Standalone DCGM, the
   * node-status exporter, the DRA driver and the sandbox operands are off there.
   */
  public static final List<String> DEFAULT_DAEMONSETS =
      List.of(
          "nvidia-driver-daemonset",
          "nvidia-container-toolkit-daemonset",
          "nvidia-operator-validator",
          "nvidia-device-plugin-daemonset",
          "nvidia-device-plugin-mps-control-daemon",
          "nvidia-dcgm-exporter",
          "gpu-feature-discovery",
          "nvidia-mig-manager");

  /** The operands that render {@link #DEFAULT_DAEMONSETS}, in deployment order. */
  public static final List<String> DEFAULT_DAEMONSET_OPERANDS =
      List.of(
          "driver",
          "container-toolkit",
          "operator-validator",
          "device-plugin",
          "mps-control-daemon",
          "dcgm-exporter",
          "gpu-feature-discovery",
          "mig-manager");

  private Policies() {}

  /** The documentation sample shipped with the api module. */
  public static ClusterPolicy sample() {
    try (InputStream in = Policies.class.getResourceAsStream(SAMPLE)) {
      return Serialization.unmarshal(in, ClusterPolicy.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A Node with these labels and nothing else: what the labelling rules and selectors read. */
  public static Node node(String name, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  /** A policy from YAML text. */
  public static ClusterPolicy parse(String yaml) {
    return Serialization.unmarshal(yaml, ClusterPolicy.class);
  }

  /** A policy named p whose spec is this YAML (each line indented by two spaces). */
  public static ClusterPolicy withSpec(String specYaml) {
    return parse(
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n" + specYaml);
  }

  /** A policy with an empty spec. */
  public static ClusterPolicy minimal() {
    ClusterPolicy p = new ClusterPolicy();
    p.getMetadata().setName("cluster-policy");
    p.setSpec(new ClusterPolicySpec());
    return p;
  }

  /**
   * The operator's defaults (namespace gpu-operator, default images) in a binary with every agent
   * the operand registry knows (the CLI's tests check that its command tree has them all).
   */
  public static OperatorConfig config() {
    return OperatorConfig.fromEnv(Map.of()).withAgents(agents());
  }

  /**
   * As {@link #config()}, with this project's image named for the toolkit (whose agent is not the
   * default: NVIDIA's toolkit image installs the runtime binaries ours lacks).
   */
  public static OperatorConfig configWithToolkitAgent() {
    return OperatorConfig.fromEnv(
            Map.of("CONTAINER_TOOLKIT_IMAGE", io.gpuoperator.api.OperandImages.projectImage()))
        .withAgents(agents());
  }

  /** The subcommands of every operand's agent rendering. */
  public static Set<String> agents() {
    Set<String> out =
        Operands.ordered().stream()
            .filter(o -> o.agent() != null)
            .map(o -> o.agent().subcommand())
            .collect(java.util.stream.Collectors.toSet());
    out.add("node-agents"); // the binary's, for node-agents mode
    return out;
  }

  /** Two Ubuntu 22.04 GPU nodes, containerd, no ServiceMonitor CRD. */
  public static ClusterFacts facts() {
    return ClusterFacts.offline(2, "ubuntu22.04");
  }
}
