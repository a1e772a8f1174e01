package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.node.agent.NodeAgentSupervisor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeAgentsCommandTest {
  @TempDir Path dir;

  @Test
  void backoffDoublesToItsCapAndStartsOverAfterALongRun() {
    var b =
        new NodeAgentSupervisor.Backoff(
            Duration.ofSeconds(10), Duration.ofSeconds(35), Duration.ofMinutes(10));
    Duration d = b.next(null, Duration.ofSeconds(1));
    assertThat(d).hasSeconds(10);
    assertThat(d = b.next(d, Duration.ofSeconds(1))).hasSeconds(20);
    assertThat(d = b.next(d, Duration.ofSeconds(1))).hasSeconds(35);
    assertThat(d = b.next(d, Duration.ofSeconds(1))).hasSeconds(35);
    assertThat(b.next(d, Duration.ofMinutes(11))).hasSeconds(10);
  }

  /** Each agent sees the shared variables and its own, never another agent's. */
  @Test
  void eachAgentSeesItsOwnPrefixedVariablesOnly() {
    Map<String, String> env =
        Map.of(
            "NODE_NAME", "n1",
            "MIG_STRATEGY", "single",
            "DEVICE_PLUGIN__MIG_STRATEGY", "mixed",
            "DEVICE_PLUGIN__PASS_DEVICE_SPECS", "true",
            "FEATURE_DISCOVERY__GFD_OUTPUT", "node-labels");
    assertThat(NodeAgentsCommand.agentEnv("device-plugin", env))
        .containsEntry("NODE_NAME", "n1")
        .containsEntry("MIG_STRATEGY", "mixed")
        .containsEntry("PASS_DEVICE_SPECS", "true")
        .doesNotContainKeys("GFD_OUTPUT", "FEATURE_DISCOVERY__GFD_OUTPUT");
    assertThat(NodeAgentsCommand.agentEnv("feature-discovery", env))
        .containsEntry("MIG_STRATEGY", "single")
        .containsEntry("GFD_OUTPUT", "node-labels")
        .doesNotContainKeys("PASS_DEVICE_SPECS", "DEVICE_PLUGIN__MIG_STRATEGY");
  }

  @Test
  void aSelectorForAnAgentThatDoesNotRunOrThatDoesNotParseIsBadInput() {
    refused(
        "no --run runs 'exporter'",
        "node-agents",
        "--run",
        "device-plugin",
        "--node-selector",
        "exporter=nvidia.com/gpu.deploy.dcgm-exporter=true");
    refused(
        "'oops' is not key=value or key!=value",
        "node-agents",
        "--run",
        "device-plugin",
        "--node-selector",
        "device-plugin=oops");
  }

  @Test
  void aRunThatIsNotAnAgentOrDoesNotParseIsBadInputNamingIt() {
    assertThat(refused("--run 'operator'", "node-agents", "--run", "operator"))
        .contains("not a node agent");
    refused(
        "--run 'feature-discovery --no-such-flag'",
        "node-agents",
        "--run",
        "feature-discovery --no-such-flag");
  }

  /** One JVM has one logging: node-agents takes the zap flags, an agent's own would do nothing. */
  @Test
  void theZapFlagsAreNodeAgentsOwnNotAnAgentsInItsRun() {
    refused(
        "--run 'device-plugin --zap-log-level=debug': --zap-log-level sets the logging of the"
            + " whole process: give it to node-agents itself",
        "node-agents",
        "--run",
        "device-plugin --zap-log-level=debug");
    assertThat(
            refused("--zap-encoder", "node-agents", "--zap-encoder=text", "--run", "device-plugin"))
        .contains("invalid encoder value \"text\" (json or console)");
  }

  /** Runs {@code args}, which must be refused as bad input (exit 2) saying {@code why}. */
  private static String refused(String why, String... args) {
    CommandRun r = CommandRun.of(args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(why);
    return r.err();
  }

  /** {@code plan --node-agents} renders the mode as the operator with NODE_AGENTS=true does. */
  @Test
  void planWithNodeAgentsRendersOneDaemonSetInsteadOfTheAgentsOwn() throws Exception {
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(
        policy, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec: {}\n");
    CommandRun withAgents = CommandRun.of("plan", "-f", policy.toString(), "--node-agents");
    assertThat(withAgents.code()).isZero();
    assertThat(withAgents.out())
        .contains("  node-agents: our agent (gpu-operator node-agents)")
        .contains("    DaemonSet/nvidia-node-agents: create")
        .contains("    ServiceAccount/nvidia-node-agents: create")
        .doesNotContain("DaemonSet/nvidia-device-plugin-daemonset")
        .doesNotContain("DaemonSet/nvidia-mig-manager")
        .contains("    DaemonSet/nvidia-operator-validator: create");
    CommandRun without = CommandRun.of("plan", "-f", policy.toString());
    assertThat(without.code()).isZero();
    assertThat(without.out())
        .contains("    DaemonSet/nvidia-device-plugin-daemonset: create")
        .doesNotContain("node-agents");
  }

  /** An agent that ends is started again on its own: a oneshot labeller writes its file again. */
  @Test
  void anAgentThatEndsIsRestarted() throws Exception {
    Path out = dir.resolve("gfd");
    Thread host =
        new Thread(
            () ->
                GpuOperatorCommand.commandLine()
                    .execute(
                        "node-agents",
                        "--restart-delay-seconds=1",
                        "--run",
                        "feature-discovery --backend=simulated --node-profile=dgx-h100"
                            + " --oneshot --output=file -o "
                            + out),
            "node-agents-test");
    host.setDaemon(true);
    host.start();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(out));
      assertThat(Files.readString(out)).contains("nvidia.com/gpu.count=8");
      Files.delete(out);
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(out));
    } finally {
      host.interrupt();
    }
  }
}
