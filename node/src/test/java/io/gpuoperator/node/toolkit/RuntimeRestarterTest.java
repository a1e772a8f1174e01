package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signal restart finds the process behind the runtime's socket by its peer credentials and
 * sends it SIGHUP, as containerd gets it: a real child process listening on a Unix socket.
 */
class RuntimeRestarterTest {
  @TempDir Path dir;

  @Test
  void sighupGoesToTheProcessOnTheSocket() throws Exception {
    Path socket = dir.resolve("containerd.sock");
    Process daemon =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SocketDaemon.class.getName(),
                socket.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      // The socket file appears at bind(), a moment before listen(): wait until it accepts.
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> assertThat(PeerCredentials.pid(socket)).isEqualTo((int) daemon.pid()));

      new RuntimeRestarter(
              RuntimeRestarter.Mode.SIGNAL, socket, "/", "containerd", 3, Duration.ofMillis(10))
          .restart();

      assertThat(daemon.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(daemon.exitValue()).as("killed by SIGHUP (128 + 1)").isEqualTo(129);
    } finally {
      daemon.destroyForcibly();
    }
  }

  @Test
  void noProcessOnTheSocketFailsAfterTheRetriesWithWhatToDo() {
    Path socket = dir.resolve("missing.sock");
    assertThatThrownBy(
            () ->
                new RuntimeRestarter(
                        RuntimeRestarter.Mode.SIGNAL,
                        socket,
                        "/",
                        "containerd",
                        3,
                        Duration.ofMillis(10))
                    .restart())
        .hasMessageContaining("after 3 attempts")
        .hasMessageContaining("signal mode")
        .hasMessageContaining(socket.toString())
        .hasMessageContaining("RUNTIME_RESTART_MODE=systemd");
  }

  @Test
  void systemdModeFailureNamesTheCommand() {
    assertThatThrownBy(
            () ->
                new RuntimeRestarter(
                        RuntimeRestarter.Mode.SYSTEMD,
                        null,
                        dir.toString(),
                        "crio",
                        2,
                        Duration.ofMillis(10))
                    .restart())
        .hasMessageContaining("after 2 attempts")
        .hasMessageContaining("systemd mode")
        .hasMessageContaining("chroot " + dir);
  }
}
