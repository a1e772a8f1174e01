package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run directory's watchdog (issue 33 finding 8) and the next run's clean-up: what each removes,
 * when, and what each leaves alone. The owner's death is fed as the watchdog sees it, its pipe
 * closed (SimulateKilledIT kills a real {@code simulate} JVM).
 */
class RunDirsTest {
  private static final String PREFIX = "gpu-operator-rundirs-test-";

  @TempDir Path elsewhere;
  private final List<Process> started = new ArrayList<>();
  private final List<Path> dirs = new ArrayList<>();

  @AfterEach
  void cleanUp() {
    started.forEach(Process::destroyForcibly);
    dirs.forEach(RunDirs::remove);
  }

  private Path create() throws Exception {
    Path dir = RunDirs.create(PREFIX);
    dirs.add(dir);
    return dir;
  }

  private Process sleeper() throws Exception {
    Process p = new ProcessBuilder("sleep", "600").start();
    started.add(p);
    return p;
  }

  @Test
  void theOwnersDeathRemovesTheDirectoryAndItsFilesOnceItsProcessesAreGone() throws Exception {
    Path dir = create();
    Files.createDirectories(dir.resolve("pki"));
    Files.writeString(dir.resolve("pki/ca.key"), "secret");
    Path kubeconfig = Files.writeString(elsewhere.resolve("user.kubeconfig"), "config");
    RunDirs.register(dir, kubeconfig);
    Process binary = sleeper();
    RunDirs.registerProcess(dir, binary.pid());
    RunDirWatchdog watchdog = RunDirs.watchdog(dir);
    assertThat(watchdog.process().isAlive()).isTrue();

    watchdog.ownerGone();
    // While a registered process runs, the directory stays (the binary may still write to it).
    Thread.sleep(1000);
    assertThat(dir).as("removed while its process runs").exists();
    assertThat(kubeconfig).exists();

    binary.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(dir).doesNotExist();
              assertThat(kubeconfig).doesNotExist();
              assertThat(watchdog.process().isAlive()).as("watchdog running").isFalse();
            });
  }

  @Test
  void withoutProcessesTheOwnersDeathRemovesTheDirectoryAtOnce() throws Exception {
    Path dir = create();
    RunDirWatchdog watchdog = RunDirs.watchdog(dir);
    watchdog.ownerGone();
    assertThat(watchdog.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(dir).doesNotExist();
  }

  @Test
  void aReleasedDirectoryIsKeptAndItsWatchdogEnds() throws Exception {
    Path dir = create();
    RunDirWatchdog watchdog = RunDirs.watchdog(dir);
    RunDirs.release(dir);
    assertThat(watchdog.process().isAlive()).isFalse();
    assertThat(watchdog.process().exitValue()).isZero();
    assertThat(dir).isDirectory();
    assertThat(RunDirs.watchdog(dir)).isNull();
  }

  @Test
  void removeDeletesTheDirectoryAndEndsItsWatchdog() throws Exception {
    Path dir = create();
    RunDirWatchdog watchdog = RunDirs.watchdog(dir);
    RunDirs.remove(dir);
    assertThat(dir).doesNotExist();
    assertThat(watchdog.process().isAlive()).isFalse();
  }

  @Test
  void theNextRunRemovesWhatARunWhoseWatchdogDiedTooLeftButNotALiveRunsDirectory()
      throws Exception {
    Process gone = new ProcessBuilder("true").start();
    String startedAt = gone.info().startInstant().map(Instant::toString).orElse("");
    assertThat(gone.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Path stale = Files.createDirectory(elsewhere.resolve(PREFIX + "stale"));
    Path kubeconfig = Files.writeString(elsewhere.resolve("stale.kubeconfig"), "config");
    Files.writeString(
        stale.resolve(RunDirs.OWNER),
        gone.pid() + "\n" + startedAt + "\nfile=" + kubeconfig + "\n");
    Path live = Files.createDirectory(elsewhere.resolve(PREFIX + "live"));
    ProcessHandle self = ProcessHandle.current();
    Files.writeString(
        live.resolve(RunDirs.OWNER),
        self.pid() + "\n" + self.info().startInstant().map(Instant::toString).orElse("") + "\n");
    Path unmarked = Files.createDirectory(elsewhere.resolve(PREFIX + "unmarked"));

    List<Path> removed = RunDirs.cleanStale(elsewhere, PREFIX);

    assertThat(removed).containsExactlyInAnyOrder(stale, kubeconfig);
    assertThat(stale).doesNotExist();
    assertThat(kubeconfig).doesNotExist();
    assertThat(live).isDirectory();
    assertThat(unmarked).isDirectory();
  }
}
