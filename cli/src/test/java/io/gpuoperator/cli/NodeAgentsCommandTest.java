package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class NodeAgentsCommandTest {
  @TempDir Path dir;

  @Test
  void backoffDoublesToItsCapAndStartsOverAfterALongRun() {
    var b =
        new NodeAgentsCommand.Backoff(
            Duration.ofSeconds(10), Duration.ofSeconds(35), Duration.ofMinutes(10));
    assertThat(b.next(Duration.ofSeconds(1))).hasSeconds(10);
    assertThat(b.next(Duration.ofSeconds(1))).hasSeconds(20);
    assertThat(b.next(Duration.ofSeconds(1))).hasSeconds(35);
    assertThat(b.next(Duration.ofSeconds(1))).hasSeconds(35);
    assertThat(b.next(Duration.ofMinutes(11))).hasSeconds(10);
  }

  @Test
  void aRunThatIsNotAnAgentOrDoesNotParseIsBadInputNamingIt() {
    StringWriter err = new StringWriter();
    CommandLine cl = GpuOperatorCommand.commandLine();
    cl.setErr(new PrintWriter(err));
    assertThat(cl.execute("node-agents", "--run", "operator")).isEqualTo(2);
    assertThat(err.toString()).contains("--run 'operator'").contains("not a node agent");

    err.getBuffer().setLength(0);
    assertThat(cl.execute("node-agents", "--run", "feature-discovery --no-such-flag")).isEqualTo(2);
    assertThat(err.toString()).contains("--run 'feature-discovery --no-such-flag'");
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
