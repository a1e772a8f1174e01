package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class GpuOperatorCommandTest {

  private static String run(String... args) {
    CommandLine cmd = GpuOperatorCommand.commandLine();
    StringWriter out = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(out));
    int rc = cmd.execute(args);
    assertThat(rc).as("exit code of %s", String.join(" ", args)).isZero();
    return out.toString();
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
  void devicePluginRejectsBadInputWithTheFieldAndExitCode2() {
    CommandLine cmd = GpuOperatorCommand.commandLine();
    StringWriter out = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(out));
    int rc =
        cmd.execute(
            "device-plugin",
            "--backend",
            "simulated",
            "--node-profile",
            "dgx-h100",
            "--mig-strategy",
            "sometimes");
    assertThat(rc).isEqualTo(2);
    assertThat(out.toString())
        .contains("MIG_STRATEGY: unknown MIG strategy 'sometimes', expected none, single or mixed");
  }
}
