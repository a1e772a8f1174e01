package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class GpuOperatorCommandTest {

  /** What a command printed (out and err together), once it exited with {@code rc}. */
  private static String runExpecting(int rc, String... args) {
    CommandLine cmd = GpuOperatorCommand.commandLine();
    StringWriter out = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(out));
    assertThat(cmd.execute(args)).as("exit code of %s", String.join(" ", args)).isEqualTo(rc);
    return out.toString();
  }

  private static String run(String... args) {
    return runExpecting(0, args);
  }

  @Test
  void versionPrintsProjectVersionAndEveryOperandImage() {
    String out = run("version");
    assertThat(out).startsWith("gpu-operator 0.");
    assertThat(out).contains("driver", "nvcr.io/nvidia/driver:");
    assertThat(out).contains("device-plugin");
    assertThat(out).doesNotContain("${");
  }

  @Test
  void helpListsOnlyRegisteredSubcommands() {
    String out = run("--help");
    CommandLine cmd = GpuOperatorCommand.commandLine();
    for (String sub : cmd.getSubcommands().keySet()) {
      assertThat(out).contains(sub);
    }
    assertThat(out).contains("version");
  }

  @Test
  void planIsRegisteredAndRejectsAnInvalidPolicyWithTheFieldPath() throws Exception {
    assertThat(run("plan", "--help")).contains("--filename", "--nodes", "--kubeconfig");
    java.nio.file.Path bad = java.nio.file.Files.createTempFile("policy", ".yaml");
    try {
      java.nio.file.Files.writeString(
          bad,
          "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n"
              + "spec:\n  mig:\n    strategy: sometimes\n");
      CommandLine cmd = GpuOperatorCommand.commandLine();
      StringWriter err = new StringWriter();
      cmd.setOut(new PrintWriter(new StringWriter()));
      cmd.setErr(new PrintWriter(err));
      assertThat(cmd.execute("plan", "-f", bad.toString())).isEqualTo(2);
      assertThat(err.toString()).contains("spec.mig.strategy: Unsupported value");
    } finally {
      java.nio.file.Files.deleteIfExists(bad);
    }
  }

  @Test
  void featureDiscoveryLabelsASimulatedNodeIntoAFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("gfd");
    run(
        "feature-discovery",
        "--backend=simulated",
        "--node-profile=t4-x4",
        "--oneshot",
        "--output=file",
        "--output-file=" + file);
    assertThat(Files.readString(file))
        .contains("nvidia.com/gpu.product=Tesla-T4\n")
        .contains("nvidia.com/gpu.count=4\n")
        .contains("nvidia.com/gpu.machine=g4dn.12xlarge\n");
  }

  @Test
  void devicePluginRejectsBadInputWithTheFieldAndExitCode2() {
    assertThat(simulatedDevicePluginWith("--mig-strategy", "sometimes"))
        .isEqualTo(
            "gpu-operator device-plugin: --mig-strategy: unknown MIG strategy \"sometimes\";"
                + " expected none, single or mixed\n");
    assertThat(simulatedDevicePluginWith("--health-recovery-period", "soon"))
        .isEqualTo(
            "gpu-operator device-plugin: --health-recovery-period: expected a duration such as"
                + " 60s, 1m30s, 500ms or infinite, got \"soon\"\n");
  }

  /** What the simulated device plugin prints when refusing {@code flag}'s value, with exit 2. */
  private static String simulatedDevicePluginWith(String flag, String value) {
    return runExpecting(
        2, "device-plugin", "--backend", "simulated", "--node-profile", "dgx-h100", flag, value);
  }

  /**
   * Issue 11.8: every subcommand, at any depth, answers {@code --help} and {@code -V}; its summary
   * is a whole sentence; every option that takes a value has a placeholder of its own (not
   * picocli's {@code <field>}), and usage lines are not broken inside a word.
   */
  @Test
  void everySubcommandHasHelpVersionASentenceAndPlaceholders() {
    java.util.List<String> problems = new java.util.ArrayList<>();
    java.util.ArrayDeque<CommandLine> todo = new java.util.ArrayDeque<>();
    todo.add(GpuOperatorCommand.commandLine());
    int checked = 0;
    while (!todo.isEmpty()) {
      CommandLine cl = todo.pop();
      todo.addAll(cl.getSubcommands().values());
      var spec = cl.getCommandSpec();
      if (spec.userObject() instanceof CommandLine.HelpCommand) {
        continue;
      }
      String name = spec.qualifiedName();
      String[] path = name.split(" ");
      String[] args = java.util.Arrays.copyOfRange(path, 1, path.length + 1);
      args[args.length - 1] = "--help";
      String help = run(args);
      args[args.length - 1] = "-V";
      assertThat(run(args)).as("%s -V", name).startsWith("gpu-operator 0.");
      String[] header = spec.usageMessage().header();
      String[] description = spec.usageMessage().description();
      String summary = header.length > 0 ? header[0] : description.length > 0 ? description[0] : "";
      if (!summary.strip().endsWith(".")) {
        problems.add(name + ": summary is not a sentence: " + summary);
      }
      for (CommandLine.Model.OptionSpec o : spec.options()) {
        if (o.arity().max() > 0 && o.paramLabel().startsWith("<")) {
          problems.add(name + " " + o.longestName() + ": no placeholder (" + o.paramLabel() + ")");
        }
      }
      for (String line : help.lines().toList()) {
        // A usage line picocli wrapped inside a word ends in a letter and the next starts in one.
        if (line.matches(".*[A-Za-z]-$")) {
          problems.add(name + ": usage line broken inside a word: " + line);
        }
      }
      checked++;
    }
    assertThat(problems).isEmpty();
    assertThat(checked).isGreaterThan(12);
  }
}
