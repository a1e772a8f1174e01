package io.gpuoperator.sim.kubelet;

import static io.gpuoperator.sim.kubelet.InProcessContainers.threadsNamed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-process task as a container: begun on the shared pool, holding no thread while its future
 * is pending, exiting with the future's code (1 when it fails), and cancelled when killed (137).
 */
class InProcessTaskTest {
  @TempDir Path dir;

  private ContainerProcess start(InProcessTask agent) throws Exception {
    return InProcessContainers.start(dir, "task", agent);
  }

  @Test
  void exitsWithTheFuturesCodeAndHoldsNoThreadWhileItWaits() throws Exception {
    CompletableFuture<Integer> code = new CompletableFuture<>();
    ContainerProcess p = start(ctx -> code);
    // The start's pool thread carried the agent's name only while beginning.
    await().atMost(Duration.ofSeconds(10)).until(() -> threadsNamed("agent-task-n1") == 0);
    Thread.sleep(200);
    assertThat(p.hasExited()).isFalse();
    code.complete(3);
    await().atMost(Duration.ofSeconds(10)).until(p::hasExited);
    assertThat(p.exitCode()).isEqualTo(3);
    assertThat(p.message()).isEqualTo("task exited with 3");

    ContainerProcess zero = start(ctx -> CompletableFuture.completedFuture(0));
    await().atMost(Duration.ofSeconds(10)).until(zero::hasExited);
    assertThat(zero.exitCode()).isZero();
    assertThat(zero.message()).isNull();
  }

  @Test
  void aFailureIsExitOneWithItsMessage() throws Exception {
    CompletableFuture<Integer> code = new CompletableFuture<>();
    ContainerProcess failed = start(ctx -> code);
    code.completeExceptionally(new IllegalStateException("no API server"));
    await().atMost(Duration.ofSeconds(10)).until(failed::hasExited);
    assertThat(failed.exitCode()).isEqualTo(1);
    assertThat(failed.message()).contains("no API server");

    // A stage's failure: the cause is the message, not its CompletionException.
    ContainerProcess staged =
        start(
            ctx ->
                CompletableFuture.supplyAsync(
                    () -> {
                      throw new IllegalStateException("watch failed");
                    }));
    await().atMost(Duration.ofSeconds(10)).until(staged::hasExited);
    assertThat(staged.exitCode()).isEqualTo(1);
    assertThat(staged.message()).isEqualTo("java.lang.IllegalStateException: watch failed");

    ContainerProcess thrown =
        start(
            ctx -> {
              throw new IllegalArgumentException("bad args");
            });
    await().atMost(Duration.ofSeconds(10)).until(thrown::hasExited);
    assertThat(thrown.exitCode()).isEqualTo(1);
    assertThat(thrown.message()).contains("bad args");
  }

  @Test
  void aKillCancelsTheFutureAndExits137() throws Exception {
    CompletableFuture<Integer> code = new CompletableFuture<>();
    ContainerProcess p = start(ctx -> code);
    await().atMost(Duration.ofSeconds(10)).until(() -> threadsNamed("agent-task-n1") == 0);
    p.stop();
    assertThat(code).isCancelled();
    assertThat(p.exitCode()).isEqualTo(KubeletConstants.EXIT_KILLED);
    assertThat(p.message()).isEqualTo("killed");
  }
}
