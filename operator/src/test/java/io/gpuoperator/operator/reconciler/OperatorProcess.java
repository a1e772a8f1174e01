package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.operator.runtime.OperatorCommand;
import io.gpuoperator.operator.runtime.ZapLogging;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * The operator as its own JVM, {@code gpu-operator operator} as a pod runs it (its shutdown hook
 * included), on the test classpath: {@link #kill} is a real SIGKILL, so nothing of the process gets
 * to finish, flush or release anything. Its requests carry the product's user agent ({@code
 * gpu-operator/<version>}, {@link #USER_AGENT} in the audit log); its output goes to a file.
 */
final class OperatorProcess implements AutoCloseable {
  /** Audit-log user agent prefix of every operator process. */
  static final String USER_AGENT = "gpu-operator/";

  private static final Pattern METRICS = Pattern.compile("metrics [^ ,]+:(\\d+)");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  final Process process;
  final Path log;
  private int metricsPort;

  private OperatorProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * The child's entry point: the operator command alone, logging as the command's flags say (zap
   * JSON by default), exiting with its code.
   */
  public static void main(String[] args) {
    System.exit(ZapLogging.entryPoint(new CommandLine(new OperatorCommand())).execute(args));
  }

  /**
   * Starts an operator on the kubeconfig's cluster, reconciling in {@code namespace}, without
   * leader election (each start follows a dead process; no other instance runs), metrics and health
   * on free loopback ports, its output in {@code target/failsafe-reports/<name>.log}. Returns once
   * its metrics endpoint answers.
   */
  static OperatorProcess start(Path kubeconfig, String namespace, String name) throws IOException {
    return start(kubeconfig, namespace, Path.of("target", "failsafe-reports", name + ".log"));
  }

  private static OperatorProcess start(Path kubeconfig, String namespace, Path log)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    String classpath = System.getProperty("surefire.test.class.path");
    if (classpath == null || classpath.isBlank()) {
      classpath = System.getProperty("java.class.path");
    }
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                // A small operator on a busy 2-core machine: start fast, collect cheaply.
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                classpath,
                OperatorProcess.class.getName(),
                "--kubeconfig=" + kubeconfig,
                "--metrics-bind-address=127.0.0.1:0",
                "--health-probe-bind-address=127.0.0.1:0",
                "--leader-elect=false"));
    Files.createDirectories(log.getParent());
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    // Only what a pod would set: nothing of the build's environment (a KUBECONFIG).
    pb.environment().clear();
    pb.environment().put("OPERATOR_NAMESPACE", namespace);
    OperatorProcess p = new OperatorProcess(pb.start(), log);
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                assertThat(p.process.isAlive()).as("operator running; see %s", log).isTrue();
                Matcher m = METRICS.matcher(Files.readString(log));
                if (!m.find()) {
                  return false;
                }
                p.metricsPort = Integer.parseInt(m.group(1));
                return true;
              });
    } catch (RuntimeException | Error e) {
      p.close();
      throw e;
    }
    return p;
  }

  /**
   * Completed passes of the driver upgrade reconciler in this process ({@code
   * operator_sdk_reconciliations_success_total{controller="driverupgrade"}}), 0 before the first.
   */
  long upgradePasses() {
    return passes("driverupgrade");
  }

  /** Completed passes of one controller in this process, 0 before the first. */
  long passes(String controller) {
    String body;
    try {
      body =
          HTTP.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
    Matcher m =
        Pattern.compile(
                "^operator_sdk_reconciliations_success_total\\{controller=\""
                    + controller
                    + "\"\\}"
                    + " ([0-9.eE+]+)$",
                Pattern.MULTILINE)
            .matcher(body);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /** Waits until this process has completed {@code n} more upgrade passes than now. */
  void awaitPasses(int n) {
    awaitPasses("driverupgrade", n);
  }

  /** Waits until this process has completed {@code n} more passes of the controller than now. */
  void awaitPasses(String controller, int n) {
    long from = passes(controller);
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              assertThat(process.isAlive()).as("operator running; see %s", log).isTrue();
              return passes(controller) >= from + n;
            });
  }

  /** SIGKILL, as the OOM killer or a node failure would: no shutdown hook runs. */
  void kill() {
    process.destroyForcibly();
    try {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed operator exits").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    // 128 + 9: killed by SIGKILL, not exited by itself.
    assertThat(process.exitValue()).as("exit status of the killed operator").isEqualTo(137);
  }

  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
