package io.gpuoperator.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeFactsTest {
  static Node node(String name, Map<String, String> labels, String runtime) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .withNewNodeInfo()
        .withContainerRuntimeVersion(runtime)
        .endNodeInfo()
        .endStatus()
        .build();
  }

  @Test
  void countsGpuNodesAndReadsRuntimeAndOsFromThem() {
    var gpu =
        Map.of(
            "nvidia.com/gpu.present",
            "true",
            NodeFacts.OS_ID,
            "ubuntu",
            NodeFacts.OS_VERSION,
            "22.04");
    var facts =
        NodeFacts.of(
            List.of(
                node("g1", gpu, "containerd://1.7.2"),
                node("g2", gpu, "cri-o://1.28"),
                node("g3", gpu, "cri-o://1.28"),
                node("cpu", Map.of("feature.node.kubernetes.io/cpu-model.id", "1"), "docker://24")),
            "v1.36.3",
            true);
    assertThat(facts.gpuNodeCount()).isEqualTo(3);
    assertThat(facts.containerRuntime()).isEqualTo("crio");
    assertThat(facts.osTag()).isEqualTo("ubuntu22.04");
    assertThat(facts.nfdLabelsPresent()).isTrue();
    assertThat(facts.serviceMonitorCrd()).isTrue();
  }

  @Test
  void nfdGpuNodeCountsBeforeTheOperatorLabelledIt() {
    var facts =
        NodeFacts.of(
            List.of(
                node(
                    "g1",
                    Map.of(
                        "feature.node.kubernetes.io/pci-10de.present",
                        "true",
                        NodeFacts.OS_ID,
                        "ubuntu",
                        NodeFacts.OS_VERSION,
                        "22.04"),
                    "containerd://1.7.2"),
                node(
                    "cpu",
                    Map.of(NodeFacts.OS_ID, "rhel", NodeFacts.OS_VERSION, "9.2"),
                    "containerd://1.7.2")),
            "v1.36.3",
            false);
    assertThat(facts.gpuNodeCount()).isEqualTo(1);
    assertThat(facts.osTag()).isEqualTo("ubuntu22.04");
  }

  @Test
  void noNodesMeansNoGpusNoNfdAndDefaultRuntime() {
    var facts = NodeFacts.of(List.of(), "v1.36.3", false);
    assertThat(facts.gpuNodeCount()).isZero();
    assertThat(facts.nfdLabelsPresent()).isFalse();
    assertThat(facts.containerRuntime()).isEqualTo("containerd");
    assertThat(facts.osTag()).isNull();
  }

  @Test
  void kernelsOfGpuNodesOnlyDistinctAndSorted() {
    String kernel = "feature.node.kubernetes.io/kernel-version.full";
    var facts =
        NodeFacts.of(
            List.of(
                node("g1", Map.of("nvidia.com/gpu.present", "true", kernel, "6.8.0-45"), null),
                node("g2", Map.of("nvidia.com/gpu.present", "true", kernel, "5.15.0-1"), null),
                node("g3", Map.of("nvidia.com/gpu.present", "true", kernel, "6.8.0-45"), null),
                node("cpu", Map.of(kernel, "4.19.0"), null)),
            "v1.36.3",
            false);
    assertThat(facts.kernelVersions()).containsExactly("5.15.0-1", "6.8.0-45");
  }
}
