package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterFileTest {

  @Test
  void expandsCountsAndReadsOverrides() {
    List<NodeDescription> nodes =
        ClusterFile.parse(
                """
            nodes:
            - name: h100
              count: 2
              profile: H100-SXM5-80GB
              gpus: 8
              os: {id: rhel, versionId: "9.4"}
              kernel: 5.14.0-427.el9.x86_64
              labels: {team: ml}
              overrides:
              - image: nvcr.io/nvidia/driver
                behaviour: {exitAfter: 2s, exitCode: 1}
            - name: l4
              profile: L4
            - name: cpu
            """,
                "cluster.yaml")
            .nodes();
    assertThat(nodes)
        .extracting(NodeDescription::name)
        .containsExactly("h100-0", "h100-1", "l4", "cpu");
    NodeDescription h = nodes.get(1);
    assertThat(h.gpus()).isEqualTo(8);
    assertThat(h.osId()).isEqualTo("rhel");
    assertThat(h.labels()).containsEntry("team", "ml");
    assertThat(h.overrides()).hasSize(1);
    DeclaredBehaviour b = h.overrides().get(0).behaviour();
    assertThat(b.exitAfter()).isEqualTo(Duration.ofSeconds(2));
    assertThat(b.exitCode()).isEqualTo(1);
    assertThat(nodes.get(2).gpus()).isEqualTo(1);
    assertThat(nodes.get(3).hasGpus()).isFalse();
    assertThat(nodes.get(3).osId()).isEqualTo("ubuntu");
  }

  @Test
  void readsTheMigLayoutANodeStartsWith() {
    List<NodeDescription> nodes =
        ClusterFile.parse(
                "nodes:\n- name: mig\n  profile: H100-SXM5-80GB\n  gpus: 2\n"
                    + "  mig: {1g.10gb: 2, 3g.40gb: 1}\n- name: cpu\n",
                "c.yaml")
            .nodes();
    assertThat(nodes.get(0).mig())
        .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("1g.10gb", 2, "3g.40gb", 1));
    assertThat(nodes.get(1).mig()).isEmpty();
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: a\n  mig: {1g.10gb: 1}\n", "c.yaml"))
        .hasMessage("c.yaml:3:3 nodes[0].mig: set without a GPU profile");
  }

  @Test
  void unknownFieldIsReportedWithFileLineAndPath() {
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  gpu: 8\n", "c.yaml"))
        .isInstanceOf(io.gpuoperator.config.ConfigException.class)
        .hasMessageStartingWith("c.yaml:3:3 nodes[0].gpu: unknown field; known fields:");
  }

  @Test
  void badValuesAreReportedWithTheirField() {
    assertThatThrownBy(
            () ->
                ClusterFile.parse(
                    "nodes:\n- name: a\n  overrides:\n  - image: x\n    behaviour: {readyAfter: soon}\n",
                    "c.yaml"))
        .hasMessage(
            "c.yaml:5:17 nodes[0].overrides[0].behaviour.readyAfter: expected a duration such as"
                + " 60s, 1m30s, 500ms or infinite, got \"soon\"");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: A_B\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:2:3 nodes[0].name: expected a name of at most 253");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  gpus: many\n", "c.yaml"))
        .hasMessage("c.yaml:3:3 nodes[0].gpus: expected a whole number, got \"many\"");
    assertThatThrownBy(() -> ClusterFile.parse("nodes: []\n", "c.yaml"))
        .hasMessage("c.yaml:1:1 nodes: expected a non-empty list of nodes");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n- name: a\n", "c.yaml"))
        .hasMessage("c.yaml:3:3 nodes[1].name: node a is declared twice");
    assertThatThrownBy(
            () ->
                ClusterFile.parse("nodes:\n- name: a\n  overrides:\n  - behaviour: {}\n", "c.yaml"))
        .hasMessageContaining("c.yaml:4:5 nodes[0].overrides[0]")
        .hasMessageContaining("at least one of image, container, podPrefix");
  }

  @Test
  void aLabelWithoutValueIsAnEmptyLabelValue() {
    // Found by InputFuzzTest (corpus cluster/null-label-value.yaml): it used to fail with an NPE.
    var nodes =
        ClusterFile.parse("nodes:\n- name: a\n  labels: {team: null, x: }\n", "c.yaml").nodes();
    assertThat(nodes.get(0).labels()).containsEntry("team", "").containsEntry("x", "");
  }

  @Test
  void everyValueIsCheckedBeforeAnythingStarts() {
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  cpu: lots\n", "c.yaml"))
        .hasMessage(
            "c.yaml:3:3 nodes[0].cpu: expected a quantity such as 32, 500m or 256Gi, got \"lots\"");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  memory: 1Qi\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:3:3 nodes[0].memory: expected a quantity");
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: a\n  labels: {'-bad': x}\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:3:3 nodes[0].labels: expected a label key");
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: a\n  kernel: 'not a kernel'\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:3:3 nodes[0].kernel: expected a kernel version");
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: " + "n".repeat(300) + "\n", "c.yaml"))
        .hasMessageContaining("(300 characters) is longer than 63 characters");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  count: 2.5\n", "c.yaml"))
        .hasMessage("c.yaml:3:3 nodes[0].count: expected a whole number, got 2.5");
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: a\n  count: 2000000000\n", "c.yaml"))
        .hasMessage(
            "c.yaml:3:3 nodes[0].count: expected a whole number from 1 to 500, got 2000000000");
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- {name: a, profile: L4, gpus: 64}\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:2:26 nodes[0].gpus: expected a whole number from 0 to 16");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\nnodes: []\n", "c.yaml"))
        .hasMessageStartingWith("c.yaml:3:1 nodes: duplicate key \"nodes\"");
  }

  private static final String TWO_NODES =
      "nodes:\n- {name: g, profile: L4, gpus: 2, count: 2}\n- name: cpu\nfaults:\n";

  private static List<FaultSpec> faults(String entries) {
    return ClusterFile.parse(TWO_NODES + entries, "c.yaml").faults();
  }

  @Test
  void readsAFaultScheduleOfXidsStormsAndStates() {
    List<FaultSpec> f =
        faults(
            """
            - {node: g-0, gpu: 1, at: 30s, lost: true, xid: 79}
            - {node: g-1, gpu: 0, ecc: doubleBit, count: 20, every: 100ms}
            - {node: g-1, gpu: 1, thermal: true, recoverAfter: 10s}
            """);
    assertThat(f).hasSize(3);
    assertThat(f.get(0))
        .isEqualTo(
            new FaultSpec(
                "g-0",
                1,
                Duration.ofSeconds(30),
                79,
                null,
                1,
                Duration.ofSeconds(1),
                true,
                false,
                null));
    assertThat(f.get(0).describe())
        .isEqualTo("node g-0 GPU 1: fallen off the bus (never recovers), then XID 79");
    assertThat(f.get(1).at()).isEqualTo(Duration.ZERO);
    assertThat(f.get(1).count()).isEqualTo(20);
    assertThat(f.get(1).every()).isEqualTo(Duration.ofMillis(100));
    assertThat(f.get(1).describe())
        .isEqualTo("node g-1 GPU 0: doubleBit ECC error x20 every 100ms");
    assertThat(f.get(2).recoverAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(f.get(2).sendsEvents()).isFalse();
    assertThat(ClusterFile.parse(TWO_NODES.replace("faults:\n", ""), "c.yaml").faults()).isEmpty();
  }

  @Test
  void aFaultThatCannotHappenIsReportedWithItsField() {
    assertThatThrownBy(() -> faults("- {node: g, gpu: 0, xid: 79}\n"))
        .hasMessageStartingWith("c.yaml:5:4 faults[0].node: no node \"g\" is declared");
    assertThatThrownBy(() -> faults("- {node: cpu, gpu: 0, xid: 79}\n"))
        .hasMessage("c.yaml:5:4 faults[0].node: node cpu has no GPU");
    assertThatThrownBy(() -> faults("- {node: g-0, gpu: 2, xid: 79}\n"))
        .hasMessageStartingWith("c.yaml:5:")
        .hasMessageContaining("faults[0].gpu: expected a whole number from 0 to 1, got 2");
  }

  /** Each fault a node could not have is refused naming its field and what it accepts. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("impossibleFaults")
  void anImpossibleFaultNamesItsField(String entry, String message) {
    assertThatThrownBy(() -> faults(entry + "\n")).hasMessageContaining(message);
  }

  static Stream<Arguments> impossibleFaults() {
    return Stream.of(
        arguments("- {node: g-0, xid: 79}", "faults[0].gpu: required"),
        arguments(
            "- {node: g-0, gpu: 0}",
            "faults[0]: expected one of xid, ecc, lost: true or thermal: true"),
        arguments(
            "- {node: g-0, gpu: 0, ecc: tripleBit}",
            "faults[0].ecc: expected doubleBit or singleBit, got \"tripleBit\""),
        arguments(
            "- {node: g-0, gpu: 0, lost: true, ecc: doubleBit}",
            "faults[0].ecc: a GPU fallen off the bus counts no ECC errors"),
        arguments(
            "- {node: g-0, gpu: 0, xid: 79, recoverAfter: 1m}",
            "faults[0].recoverAfter: ends a state"),
        arguments(
            "- {node: g-0, gpu: 0, lost: true, count: 3}",
            "faults[0].count: repeats an xid or ecc event"),
        arguments(
            "- {node: g-0, gpu: 0, xid: 48, every: 1ms, count: 2}",
            "faults[0].every: expected at least 10ms"),
        arguments(
            "- {node: g-0, gpu: 0, xid: 48, at: 2h}", "faults[0].at: expected a duration up to 1h"),
        arguments("- {node: g-0, gpu: 0, xid: 48, when: 1s}", "faults[0].when: unknown field"));
  }

  @Test
  void readsObjectsToCreateAndChecksWhatNamesThem() {
    String nodes = "nodes:\n- name: cpu\nobjects:\n";
    var objects =
        ClusterFile.parse(
                nodes
                    + "- apiVersion: v1\n"
                    + "  kind: ConfigMap\n"
                    + "  metadata: {name: vgpu-layouts}\n"
                    + "  data: {config.yaml: 'version: v1'}\n",
                "c.yaml")
            .objects();
    assertThat(objects).hasSize(1);
    assertThat(objects.get(0)).containsEntry("kind", "ConfigMap");
    assertThat(objects.get(0).get("data"))
        .isEqualTo(java.util.Map.of("config.yaml", "version: v1"));
    assertThat(ClusterFile.parse("nodes:\n- name: cpu\n", "c.yaml").objects()).isEmpty();

    assertThatThrownBy(
            () -> ClusterFile.parse(nodes + "- {apiVersion: v1, kind: ConfigMap}\n", "c.yaml"))
        .hasMessage("c.yaml:4:3 objects[0].metadata.name: required, a string");
    assertThatThrownBy(
            () -> ClusterFile.parse(nodes + "- {kind: ConfigMap, metadata: {name: a}}\n", "c.yaml"))
        .hasMessageContaining("objects[0].apiVersion: required, a string");
    assertThatThrownBy(() -> ClusterFile.parse(nodes + "- just a string\n", "c.yaml"))
        .hasMessageContaining("objects[0]: expected a Kubernetes object");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: cpu\nobjects: {a: b}\n", "c.yaml"))
        .hasMessageContaining("objects: expected a list of Kubernetes objects");
    String twice = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n";
    assertThatThrownBy(() -> ClusterFile.parse(nodes + twice + twice, "c.yaml"))
        .hasMessageContaining("objects[1].metadata.name: a second object v1/ConfigMap//a");
  }
}
