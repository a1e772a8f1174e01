package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.GpuOperatorCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Bad input is refused with exit code 2 and a specific message, before anything starts. */
class SimulateCommandTest {
  @TempDir Path tmp;

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    CommandLine cmd = GpuOperatorCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  void isRegisteredWithItsFlags() {
    Result r = run("simulate", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("--cluster-file", "--until-ready", "--timeout", "--kubeconfig-out", "-f");
  }

  @Test
  void missingClusterFileIsNamed() {
    Path missing = tmp.resolve("nope.yaml");
    Result r = run("simulate", "--cluster-file", missing.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(missing + ": no such file");
  }

  @Test
  void badClusterFileNamesTheFieldAndLine() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    Files.writeString(file, "nodes:\n- name: a\n  gpus: many\n");
    Result r = run("simulate", "--cluster-file", file.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(file + ":3", "gpus");
  }

  @Test
  void unknownMigLayoutProfileIsRefusedBeforeStarting() throws Exception {
    Path file = tmp.resolve("cluster.yaml");
    Files.writeString(file, "nodes:\n- name: l4\n  profile: L4\n  gpus: 1\n  mig: {1g.10gb: 1}\n");
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(
        policy, "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec: {}\n");
    Result r = run("simulate", "--cluster-file", file.toString(), "-f", policy.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("node l4", "L4 is not MIG-capable");
  }

  @Test
  void invalidPolicyNamesTheField() throws Exception {
    Path policy = tmp.resolve("policy.yaml");
    Files.writeString(
        policy,
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\n"
            + "spec:\n  mig:\n    strategy: sometimes\n");
    Result r = run("simulate", "-f", policy.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(policy + " is not a valid ClusterPolicy", "spec.mig.strategy");
  }

  @Test
  void badTimeoutAndMigStrategyAreRefused() {
    Result r = run("simulate", "--timeout", "soon");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("'soon' is not a duration");
    r = run("simulate", "--mig-strategy", "sometimes");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--mig-strategy: expected none, single or mixed");
  }
}
