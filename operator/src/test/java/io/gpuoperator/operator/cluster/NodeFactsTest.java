package io.gpuoperator.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.gpuoperator.operator.labels.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeFactsTest {
  private static final String NFD_GPU = "feature.node.kubernetes.io/pci-10de.present";

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

  /** A GPU node as NFD reports it: OS id, VERSION_ID and kernel (blank or "-" means absent). */
  static Node gpuNode(String name, String id, String version, String kernel) {
    Map<String, String> labels = new HashMap<>();
    labels.put(NFD_GPU, "true");
    if (!"-".equals(id)) {
      labels.put(Labels.NFD_OS_ID, id);
    }
    if (!"-".equals(version)) {
      labels.put(Labels.NFD_OS_VERSION_ID, version);
    }
    if (!"-".equals(kernel)) {
      labels.put(Labels.NFD_KERNEL_FULL, kernel);
    }
    return node(name, labels, "containerd://1.7.2");
  }

  /** The original's OS tags: rhel, rocky and ol keep the major version only. */
  @ParameterizedTest(name = "{0} {1} -> {2}, family {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ubuntu   | 22.04    | ubuntu22.04 | DEBIAN",
        "ubuntu   | 24.04    | ubuntu24.04 | DEBIAN",
        "rhel     | 9.4      | rhel9       | RHEL",
        "rhel     | 8.10     | rhel8       | RHEL",
        "rocky    | 9.3      | rocky9      | RHEL",
        "ol       | 8.9      | ol8         | RHEL",
        "OL       | 9.2      | ol9         | RHEL",
        "centos   | 7        | centos7     | RHEL",
        "centos   | 8.5      | centos8.5   | RHEL",
        "rhcos    | 4.14     | rhcos4.14   | RHEL",
        "sles     | 15.5     | sles15.5    | SLES",
        "sl-micro | 6.0      | sl-micro6.0 | SLES",
        "debian   | 12       | debian12    | DEBIAN",
        "flatcar  | 3815.2.0 | flatcar3815.2.0 | DEBIAN",
      })
  void osTagAndFamilyPerOsId(String id, String version, String tag, NodeFacts.Family family) {
    var facts = NodeFacts.of(List.of(gpuNode("g", id, version, "6.8.0-45")), "v1.36.3", false);
    assertThat(facts.osTag()).isEqualTo(tag);
    assertThat(NodeFacts.family(tag)).isEqualTo(family);
  }

  /** Missing or blank labels: no tag, no kernel (never a tag like "ubuntu" or a kernel " "). */
  @ParameterizedTest(name = "id {0}, version {1}, kernel {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ubuntu | -     | -   ",
        "-      | 22.04 | ' ' ",
        "' '    | 22.04 | ''  ",
        "ubuntu | ' '   | -   ",
      })
  void unknownOsAndBlankKernel(String id, String version, String kernel) {
    var facts = NodeFacts.of(List.of(gpuNode("g", id, version, kernel)), "v1.36.3", false);
    assertThat(facts.gpuNodeCount()).isOne();
    assertThat(facts.osTag()).isNull();
    assertThat(facts.kernelVersions()).isEmpty();
  }

  /** Which nodes count as GPU nodes: the rule of the node-label reconciler, for both callers. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "NFD says NVIDIA, not labelled yet         | feature.node.kubernetes.io/pci-10de.present=true | true",
        "NFD class+vendor label                    | feature.node.kubernetes.io/pci-0302_10de.present=true | true",
        "gpu.present alone (the original needs NFD) | nvidia.com/gpu.present=true | false",
        "NFD runs and sees no GPU: stale label     | nvidia.com/gpu.present=true,feature.node.kubernetes.io/cpu-model.id=1 | false",
        "CPU node                                  | feature.node.kubernetes.io/cpu-model.id=1 | false",
        "no labels                                 | '' | false",
      })
  void gpuNodeRule(String description, String labels, boolean gpu) {
    Map<String, String> map = new HashMap<>();
    for (String kv : labels.split(",")) {
      if (!kv.isBlank()) {
        map.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
      }
    }
    var facts = NodeFacts.of(List.of(node("n", map, null)), "v1.36.3", false);
    assertThat(facts.gpuNodeCount()).isEqualTo(gpu ? 1 : 0);
  }

  @Test
  void mostCommonRuntimeAndOsOfTheGpuNodesWin() {
    var gpu =
        Map.of(NFD_GPU, "true", Labels.NFD_OS_ID, "ubuntu", Labels.NFD_OS_VERSION_ID, "22.04");
    var facts =
        NodeFacts.of(
            List.of(
                node("g1", gpu, "containerd://1.7.2"),
                node("g2", gpu, "cri-o://1.28"),
                node("g3", gpu, "cri-o://1.28"),
                node(
                    "cpu",
                    Map.of(
                        "feature.node.kubernetes.io/cpu-model.id",
                        "1",
                        Labels.NFD_OS_ID,
                        "rhel",
                        Labels.NFD_OS_VERSION_ID,
                        "9.2"),
                    "docker://24")),
            "v1.36.3",
            true);
    assertThat(facts.gpuNodeCount()).isEqualTo(3);
    assertThat(facts.containerRuntime()).isEqualTo("crio");
    assertThat(facts.osTag()).isEqualTo("ubuntu22.04");
    assertThat(facts.nfdLabelsPresent()).isTrue();
    assertThat(facts.serviceMonitorCrd()).isTrue();
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
    var facts =
        NodeFacts.of(
            List.of(
                gpuNode("g1", "ubuntu", "22.04", "6.8.0-45"),
                gpuNode("g2", "ubuntu", "22.04", "5.15.0-1"),
                gpuNode("g3", "ubuntu", "22.04", "6.8.0-45"),
                node("cpu", Map.of(Labels.NFD_KERNEL_FULL, "4.19.0"), null)),
            "v1.36.3",
            false);
    assertThat(facts.kernelVersions()).containsExactly("5.15.0-1", "6.8.0-45");
  }
}
