package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.CommandRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input is refused with exit code 2 and a specific message, before anything starts. */
class SimulateCommandTest {
  @TempDir Path tmp;

  static CommandRun run(String... args) {
    return CommandRun.of(args);
  }

  @Test
  void isRegisteredWithItsFlags() {
    CommandRun r = run("simulate", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("--cluster-file", "--until-ready", "--timeout", "--kubeconfig-out", "-f");
  }

  @Test
  void missingClusterFileIsNamed() {
    Path missing = tmp.resolve("nope.yaml");
    CommandRun r = run("simulate", "--cluster-file", missing.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "gpu-operator simulate: --cluster-file "
                + missing
                + ": cannot read: no such file or directory\n");
  }

  @Test
  void badClusterFileNamesTheFieldAndLine() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    Files.writeString(file, "nodes:\n- name: a\n  gpus: many\n");
    CommandRun r = run("simulate", "--cluster-file", file.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains(file + ":3:3 nodes[0].gpus: expected a whole number, got \"many\"");
  }

  @Test
  void aFaultScheduleIsCheckedWithTheNodes() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    String nodes = "nodes:\n- {name: l4, profile: L4, gpus: 2}\nfaults:\n";
    Files.writeString(
        file,
        nodes
            + "- {node: l4, gpu: 1, at: 10s, lost: true, xid: 79}\n"
            + "- {node: l4, gpu: 0, ecc: doubleBit, count: 5, every: 100ms}\n");
    CommandRun r = run("simulate", "--cluster-file", file.toString(), "--dry-run");
    assertThat(r.code()).as(r.err()).isEqualTo(0);
    assertThat(r.out()).startsWith("Inputs are valid: 1 node(s), 2 GPU fault(s), ClusterPolicy");

    Files.writeString(file, nodes + "- {node: l4, gpu: 2, xid: 79}\n");
    r = run("simulate", "--cluster-file", file.toString(), "--dry-run");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains(file + ":4:")
        .contains("faults[0].gpu: expected a whole number from 0 to 1, got 2");
  }

  @Test
  void unknownMigLayoutProfileIsRefusedBeforeStarting() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    Files.writeString(file, "nodes:\n- name: l4\n  profile: L4\n  gpus: 1\n  mig: {1g.10gb: 1}\n");
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(
        policy, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec: {}\n");
    CommandRun r = run("simulate", "--cluster-file", file.toString(), "-f", policy.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(file + ":5:3 nodes[0].mig: L4 is not MIG-capable");
  }

  @Test
  void invalidPolicyNamesTheField() throws Exception {
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(
        policy,
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n"
            + "spec:\n  mig:\n    strategy: sometimes\n");
    CommandRun r = run("simulate", "-f", policy.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("-f: not a valid ClusterPolicy: " + policy + ":7:5 spec.mig.strategy");
  }

  /** The chart chooses the policy and node-agents mode: the simulator's own are refused. */
  @Test
  void withoutOperatorRefusesAPolicyAndNodeAgentsMode() throws Exception {
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(
        policy, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec: {}\n");
    CommandRun r = run("simulate", "--without-operator", "-f", policy.toString(), "--dry-run");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--without-operator: the chart's values choose the policy");
    r = run("simulate", "--without-operator", "--node-agents", "--dry-run");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("drop --node-agents");
    r = run("simulate", "--without-operator", "--dry-run");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("ClusterPolicy from the chart");
  }

  @Test
  void badTimeoutAndMigStrategyAreRefused() {
    CommandRun r = run("simulate", "--timeout", "soon");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--timeout: expected a duration such as 60s");
    r = run("simulate", "--mig-strategy", "sometimes");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains(
            "--mig-strategy: unknown MIG strategy \"sometimes\"; expected none, single or mixed");
  }

  /** Issue 19.5: every one of these used to start the whole control plane, then exit 1. */
  @Test
  void everyInputIsCheckedBeforeAnythingStarts() throws Exception {
    Path c = tmp.resolve("c.yaml");
    for (var bad :
        java.util.List.of(
            java.util.Map.entry(
                "nodes:\n- name: a\n  cpu: lots\n", "nodes[0].cpu: expected a quantity"),
            java.util.Map.entry(
                "nodes:\n- name: a\n  memory: 12 GB\n", "nodes[0].memory: expected a quantity"),
            java.util.Map.entry(
                "nodes:\n- name: a\n  labels: {'bad key!': x}\n",
                "nodes[0].labels: expected a label key"),
            java.util.Map.entry(
                "nodes:\n- name: a\n  kernel: '5.15 generic'\n",
                "nodes[0].kernel: expected a kernel version"),
            java.util.Map.entry(
                "nodes:\n- name: " + "a".repeat(300) + "\n", "is longer than 63 characters"),
            java.util.Map.entry(
                "nodes:\n- name: h\n  profile: H100-SXM5-80GB\n  gpus: 1\n  mig: {7g.80gb: 2}\n",
                "nodes[0].mig: the layout {7g.80gb=2} does not fit"),
            java.util.Map.entry(
                "nodes:\n- name: h\n  profile: V100\n",
                "nodes[0].profile: unknown GPU model \"V100\""))) {
      Files.writeString(c, bad.getKey());
      CommandRun r =
          run(
              "simulate",
              "--cluster-file",
              c.toString(),
              "--kubeconfig-out",
              tmp.resolve("k").toString());
      assertThat(r.code()).as(bad.getKey()).isEqualTo(2);
      assertThat(r.err())
          .as(bad.getKey())
          .startsWith("gpu-operator simulate: --cluster-file " + c + ":")
          .contains(bad.getValue());
      assertThat(r.out()).as("nothing started").doesNotContain("starting etcd");
    }
    CommandRun grace = run("simulate", "--node-monitor-grace-period", "forever");
    assertThat(grace.code()).isEqualTo(2);
    assertThat(grace.err()).contains("--node-monitor-grace-period: expected a duration");
    // A path below a plain file can never be written (whoever runs the test, root included).
    Path plain = Files.writeString(tmp.resolve("plain"), "x");
    CommandRun out = run("simulate", "--kubeconfig-out", plain.resolve("k").toString());
    assertThat(out.code()).isEqualTo(2);
    assertThat(out.err()).contains("--kubeconfig-out: cannot write");
  }

  @Test
  void nodesGivesTheDefaultMix() {
    CommandRun r = run("simulate", "--nodes", "10", "--dry-run");
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("Inputs are valid: 10 node(s)");
    assertThat(Simulation.mixedCluster(10))
        .extracting(io.gpuoperator.sim.kubelet.NodeDescription::name)
        .containsExactly(
            "h100-0", "h100-1", "a100-0", "a100-1", "l4-0", "l4-1", "cpu-0", "cpu-1", "cpu-2",
            "cpu-3");
    assertThat(Simulation.mixedCluster(10))
        .extracting(io.gpuoperator.sim.kubelet.NodeDescription::gpus)
        .containsExactly(8, 8, 4, 4, 2, 2, 0, 0, 0, 0);
    assertThat(Simulation.mixedCluster(2))
        .extracting(io.gpuoperator.sim.kubelet.NodeDescription::name)
        .containsExactly("h100-0", "a100-0");
  }

  @Test
  void nodesAndClusterFileTogetherAreRefused() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    Files.writeString(file, "nodes:\n- name: cpu\n");
    CommandRun r = run("simulate", "--nodes", "3", "--cluster-file", file.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--nodes and --cluster-file: give one of them");
    CommandRun zero = run("simulate", "--nodes", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--nodes");
  }
}
