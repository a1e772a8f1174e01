package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 19.4: the inputs that used to print stack traces, each through the real command tree. A
 * known failure is one line ({@code gpu-operator <command>: what failed, which input}), exit 2 for
 * bad input and 1 for the environment, and no trace without {@code -v}.
 */
class NamedFailuresTest {
  @TempDir Path dir;

  private record Outcome(int code, String err) {}

  private static Outcome run(Map<String, String> env, String... args) throws Exception {
    CommandLine cl = GpuOperatorCommand.commandLine(env);
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(err));
    // A command that hangs instead of failing fails the test.
    int code = CompletableFuture.supplyAsync(() -> cl.execute(args)).get(90, TimeUnit.SECONDS);
    return new Outcome(code, err.toString().strip());
  }

  private static void oneLine(Outcome o, int code, String command, String... mentions) {
    assertThat(o.code()).as(o.err()).isEqualTo(code);
    assertThat(o.err().lines()).as(o.err()).hasSize(1);
    assertThat(o.err()).startsWith("gpu-operator " + command + ": ").contains(mentions);
    assertThat(o.err()).doesNotContain("\tat ", "Exception", "java.");
  }

  @Test
  void badKubeconfigFilesNameTheFlag() throws Exception {
    Path bad = dir.resolve("bad.kubeconfig");
    Files.writeString(bad, "this: is not\na: kubeconfig\n");
    oneLine(
        run(
            Map.of(),
            "feature-discovery",
            "--backend=simulated",
            "--node-profile=l4-x1",
            "--node-name=n",
            "--oneshot",
            "--output=node-labels",
            "--kubeconfig=" + bad),
        2,
        "feature-discovery",
        "--kubeconfig",
        "not a kubeconfig");
    oneLine(
        run(Map.of(), "operator", "--kubeconfig=" + bad),
        2,
        "operator",
        "--kubeconfig",
        "not a kubeconfig");
  }

  @Test
  void anUnknownNodeProfileAndAnUnwritableCdiDirNameTheFlag() throws Exception {
    oneLine(
        run(Map.of(), "device-plugin", "--backend=simulated", "--node-profile=no-such-node"),
        2,
        "device-plugin",
        "--node-profile",
        "no-such-node");
    Path file = Files.writeString(dir.resolve("a-file"), "");
    oneLine(
        run(
            Map.of(),
            "device-plugin",
            "--backend=simulated",
            "--node-profile=l4-x1",
            "--device-list-strategy=cdi-annotations",
            "--cdi-spec-dir=" + file.resolve("cdi")),
        2,
        "device-plugin",
        "--cdi-spec-dir");
  }

  @Test
  void theCudaValidationWithoutAClusterSaysWhatItNeeds() throws Exception {
    Outcome o =
        run(
            Map.of("VALIDATIONS_DIR", dir.resolve("v").toString()),
            "validator",
            "--component",
            "cuda");
    assertThat(o.code()).as(o.err()).isIn(1, 2);
    oneLine(o, o.code(), "validator", "cuda validation failed", "NODE_NAME");
  }

  @Test
  void theOperatorWithAnUnreachableApiServerExitsOneNamingTheCluster() throws Exception {
    Path kubeconfig = dir.resolve("unreachable.kubeconfig");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            List.of(
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: c",
                "  cluster: {server: 'https://127.0.0.1:1'}",
                "users:",
                "- name: u",
                "  user: {token: t}",
                "contexts:",
                "- name: x",
                "  context: {cluster: c, user: u}",
                "current-context: x",
                "")));
    oneLine(
        run(
            Map.of(),
            "operator",
            "--kubeconfig=" + kubeconfig,
            "--metrics-bind-address=127.0.0.1:0",
            "--health-probe-bind-address=127.0.0.1:0",
            "--leader-elect=false"),
        1,
        "operator",
        "https://127.0.0.1:1",
        "connection refused");
  }
}
