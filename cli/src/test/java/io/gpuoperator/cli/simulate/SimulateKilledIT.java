package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.sim.controlplane.ControlPlane;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19.6 and issue 33 finding 8: {@code gpu-operator simulate} killed with SIGKILL (no shutdown
 * hook runs) leaves nothing within seconds: its control-plane processes are stopped by their
 * watchdogs, and its temp dirs (PKI, tokens, etcd data) and its kubeconfig are removed by the run
 * directories' watchdog, not only by the next run. A run stopped with SIGTERM leaves nothing
 * either. Secrets are readable by their owner only. Runs the real command (the shaded jar) as a
 * child process, with its own temp directory so the check sees only its runs. (A run whose watchdog
 * was killed too is cleaned by the next run: RunDirsTest.)
 */
class SimulateKilledIT {
  private static final Path JAR = Path.of("target", "gpu-operator.jar");
  private static final String CLUSTER =
      """
      nodes:
      - name: k-gpu
        profile: L4
        gpus: 1
      - name: k-cpu
      """;

  @TempDir Path work;
  private final List<Process> started = new ArrayList<>();
  private Path tmp;

  @AfterEach
  void stopWhatIsLeft() {
    for (Process p : started) {
      p.destroyForcibly();
    }
    if (tmp != null) {
      io.gpuoperator.sim.controlplane.RunDirs.deleteTree(tmp);
    }
  }

  @Test
  void aKilledRunLeavesNothingWithinSecondsAndAStoppedRunNothingEither() throws Exception {
    assertThat(JAR).as("the shaded jar (mvn package)").exists();
    // The runs' temp dir: short, as unix socket paths under it must stay within 108 bytes.
    tmp = Files.createTempDirectory(Path.of("/tmp"), "sk");
    Path cluster = work.resolve("cluster.yaml");
    Files.writeString(cluster, CLUSTER);

    Path kubeconfig1 = work.resolve("run1.kubeconfig");
    Run first = simulate(tmp, cluster, kubeconfig1, "5m");
    first.awaitUp();
    List<Path> firstDirs = runDirs(tmp);
    assertThat(firstDirs).as("run directories of the first run").hasSize(2);
    assertThat(Files.getPosixFilePermissions(kubeconfig1))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    Path cp =
        firstDirs.stream()
            .filter(d -> d.getFileName().toString().startsWith("gpu-operator-cp-"))
            .findFirst()
            .orElseThrow();
    for (String secret : List.of("tokens.csv", "admin.kubeconfig")) {
      assertThat(Files.getPosixFilePermissions(cp.resolve(secret)))
          .as(secret)
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }
    try (Stream<Path> keys = Files.list(cp.resolve("pki"))) {
      for (Path key : keys.filter(p -> p.toString().endsWith(".key")).toList()) {
        assertThat(Files.getPosixFilePermissions(key))
            .as(key.toString())
            .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      }
    }

    // SIGKILL: no shutdown hook runs. The control-plane watchdogs stop their binaries, the run
    // directories' watchdog removes the directories and the kubeconfig once they have stopped.
    first.process.destroyForcibly();
    assertThat(first.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(first.process.exitValue()).isEqualTo(137);
    long killedAt = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              assertThat(processesUnder(tmp)).as("processes of the killed run").isEmpty();
              assertThat(runDirs(tmp)).as("directories of the killed run").isEmpty();
              assertThat(kubeconfig1).as("the killed run's kubeconfig").doesNotExist();
            });
    System.out.printf(
        "SimulateKilledIT: nothing of the killed run left after %d ms%n",
        (System.nanoTime() - killedAt) / 1_000_000);

    Path kubeconfig2 = work.resolve("run2.kubeconfig");
    // A 1 s readiness timeout: the run reports "not ready" at once and goes on watching, so
    // readiness itself is reported after "Running until Ctrl-C" (issue 19.6: progress continues).
    Run second = simulate(tmp, cluster, kubeconfig2, "1s");
    second.awaitUp();
    assertThat(runDirs(tmp)).as("run directories of the second run").hasSize(2);

    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              int running = second.indexOf("Running until Ctrl-C");
              assertThat(running).as("output: %s", second.output).isNotNegative();
              assertThat(second.since(running))
                  .as("printed after Running until Ctrl-C")
                  .anyMatch(l -> l.matches("\\[ *\\d+ s\\] ClusterPolicy: ready"));
            });

    // SIGTERM, as Ctrl-C: the second run stops cleanly, without warnings (issue 11.8).
    int stopAt = second.output.size();
    second.process.destroy();
    assertThat(second.process.waitFor(2, TimeUnit.MINUTES)).as("second run stops").isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(processesUnder(tmp)).as("processes left").isEmpty());
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left.toList()).as("left in the temp dir").isEmpty();
    }
    assertThat(kubeconfig2).doesNotExist();
    assertThat(second.output).noneMatch(l -> l.startsWith("\tat "));
    assertThat(second.since(stopAt))
        .as("printed while stopping")
        .noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR "));
  }

  private static List<Path> runDirs(Path tmp) throws IOException {
    try (Stream<Path> dirs = Files.list(tmp)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("gpu-operator-")).toList();
    }
  }

  /** Processes whose command line names the temp dir (etcd, kube-*, their watchdogs). */
  private static List<String> processesUnder(Path tmp) {
    String dir = tmp.toString();
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(dir)).orElse(false))
        .map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
        .toList();
  }

  private Run simulate(Path tmp, Path cluster, Path kubeconfig, String timeout) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp));
    String bin = System.getProperty(ControlPlane.BIN_DIR_PROPERTY);
    if (bin != null && !bin.isBlank() && !bin.startsWith("${")) {
      cmd.add("-D" + ControlPlane.BIN_DIR_PROPERTY + "=" + bin);
    }
    cmd.addAll(
        List.of(
            "-jar",
            JAR.toString(),
            "simulate",
            "--cluster-file",
            cluster.toString(),
            "--kubeconfig-out",
            kubeconfig.toString(),
            "--timeout",
            timeout));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    started.add(p);
    Run run = new Run(p);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  run.output.add(line);
                }
              } catch (IOException e) {
                // the process is gone
              }
            },
            "simulate-output");
    reader.setDaemon(true);
    reader.start();
    return run;
  }

  private record Run(Process process, List<String> output) {
    Run(Process process) {
      this(process, new CopyOnWriteArrayList<>());
    }

    /**
     * The lines from {@code from} on, as a copy: a subList view of the live list throws
     * ConcurrentModificationException once the reader thread appends a line.
     */
    List<String> since(int from) {
      List<String> now = List.copyOf(output);
      return now.subList(from, now.size());
    }

    int indexOf(String prefix) {
      for (int i = 0; i < output.size(); i++) {
        if (output.get(i).startsWith(prefix)) {
          return i;
        }
      }
      return -1;
    }

    void awaitUp() {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("simulate exited", () -> !process.isAlive())
          .untilAsserted(
              () ->
                  assertThat(output).as("output").anyMatch(l -> l.startsWith("The cluster is up")));
    }
  }
}
