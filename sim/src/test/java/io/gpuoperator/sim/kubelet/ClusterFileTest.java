package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

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
            "cluster.yaml");
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
            "c.yaml");
    assertThat(nodes.get(0).mig())
        .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("1g.10gb", 2, "3g.40gb", 1));
    assertThat(nodes.get(1).mig()).isEmpty();
    assertThatThrownBy(
            () -> ClusterFile.parse("nodes:\n- name: a\n  mig: {1g.10gb: 1}\n", "c.yaml"))
        .hasMessageContaining("c.yaml: nodes[0]: node a: mig set but no GPU profile");
  }

  @Test
  void unknownFieldIsReportedWithFileLineAndPath() {
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  gpu: 8\n", "c.yaml"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("c.yaml:3")
        .hasMessageContaining("nodes[0].gpu")
        .hasMessageContaining("Unrecognized field");
  }

  @Test
  void badValuesAreReportedWithTheirField() {
    assertThatThrownBy(
            () ->
                ClusterFile.parse(
                    "nodes:\n- name: a\n  overrides:\n  - image: x\n    behaviour: {readyAfter: soon}\n",
                    "c.yaml"))
        .hasMessageContaining("c.yaml: nodes[0].overrides[0].behaviour.readyAfter")
        .hasMessageContaining("'soon' is not a duration");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: A_B\n", "c.yaml"))
        .hasMessageContaining("nodes[0]")
        .hasMessageContaining("not a valid DNS subdomain");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n  gpus: many\n", "c.yaml"))
        .hasMessageContaining("c.yaml:3")
        .hasMessageContaining("nodes[0].gpus");
    assertThatThrownBy(() -> ClusterFile.parse("nodes: []\n", "c.yaml"))
        .hasMessageContaining("expected a non-empty list");
    assertThatThrownBy(() -> ClusterFile.parse("nodes:\n- name: a\n- name: a\n", "c.yaml"))
        .hasMessageContaining("declared twice");
    assertThatThrownBy(
            () ->
                ClusterFile.parse("nodes:\n- name: a\n  overrides:\n  - behaviour: {}\n", "c.yaml"))
        .hasMessageContaining("overrides[0]")
        .hasMessageContaining("at least one of image, container, podPrefix");
  }
}
