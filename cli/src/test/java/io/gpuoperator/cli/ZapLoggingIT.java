package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The product's logging as a user sees it: the shaded jar's {@code operator} and {@code
 * feature-discovery} run as processes against a real API server, and their output (stdout and
 * stderr together, as {@code kubectl logs} shows them) is read line by line. By default every line
 * is a JSON object with zap's keys; with {@code --zap-devel} every line is zap's console text; a
 * bad value stops the process with one line and exit code 2.
 */
class ZapLoggingIT {
  private static final Path JAR = Path.of("target", "gpu-operator.jar");
  private static final Path LOGS = Path.of("target", "failsafe-reports");
  private static final String NS = "gpu-operator";
  private static final String NODE = "log-gpu";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * zap's console line: time, upper-case level, logger, message separated by tabs (a logger's name
   * may hold spaces: JOSDK's "Default ConfigurationService implementation").
   */
  private static final Pattern CONSOLE =
      Pattern.compile(
          "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d)\t"
              + "(DEBUG|INFO|WARN|ERROR|LEVEL\\(-\\d+\\))\t[^\t]+\t.*");

  private static final Pattern RFC3339 =
      Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d)$");

  static ControlPlane cp;
  static KubernetesClient admin;
  private static final List<Process> STARTED = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    assertThat(JAR).as("the shaded jar (mvn package)").exists();
    cp = ControlPlane.builder().start();
    admin = cp.client();
    Crds.apply(admin);
    ControlPlaneExtension.createNamespace(admin, NS, Map.of());
    admin
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
        .create();
    try (InputStream in =
        ClusterPolicy.class.getResourceAsStream("/io/gpuoperator/api/samples/clusterpolicy.yaml")) {
      admin.resources(ClusterPolicy.class).load(in).create();
    }
  }

  @AfterAll
  static void stop() {
    for (Process p : STARTED) {
      p.destroyForcibly();
    }
    if (cp != null) {
      cp.close();
    }
  }

  @Test
  void theOperatorWritesZapJsonLinesAndConsoleTextWithZapDevel() throws Exception {
    // The chart's default arguments.
    Path log =
        run(
            "operator-json",
            "operator",
            "--leader-elect=false",
            "--zap-time-encoding=epoch",
            "--zap-log-level=info");
    Process p = STARTED.get(STARTED.size() - 1);
    // A line logged during the ClusterPolicy's reconcile names it with controller-runtime's keys.
    awaitLogged(
        p,
        log,
        Duration.ofMillis(500),
        lines -> {
          assertThat(lines).anyMatch(l -> l.contains("\"controllerKind\":\"ClusterPolicy\""));
          assertStarted(log);
        });
    stop(p);
    List<JsonNode> lines = jsonLines(log);
    for (JsonNode line : lines) {
      assertThat(line.get("ts").isNumber()).as("epoch ts of %s", line).isTrue();
      assertThat(line.get("ts").asDouble())
          .as("ts of %s", line)
          .isCloseTo(
              System.currentTimeMillis() / 1000.0, org.assertj.core.data.Offset.offset(600.0));
      assertThat(line.get("level").asText()).as("level of %s", line).isIn("info", "warn", "error");
      // The operator's stack trace level is panic, as NVIDIA's: no line carries one.
      assertThat(line.has("stacktrace")).as("stacktrace in %s", line).isFalse();
    }
    JsonNode reconcile =
        lines.stream()
            .filter(l -> "ClusterPolicy".equals(l.path("controllerKind").asText(null)))
            .findFirst()
            .orElseThrow();
    assertThat(reconcile.get("controllerGroup").asText()).isEqualTo("nvidia.com");
    assertThat(reconcile.get("namespace").asText()).isEmpty();
    assertThat(reconcile.get("name").asText()).isEqualTo("cluster-policy");
    System.out.printf("ZapLoggingIT: operator, %d JSON lines%n", lines.size());

    Path devel = run("operator-devel", "operator", "--leader-elect=false", "--zap-devel");
    Process d = STARTED.get(STARTED.size() - 1);
    awaitLogged(
        d,
        devel,
        Duration.ofMillis(500),
        logged -> {
          assertStarted(devel);
          assertThat(logged)
              .anyMatch(
                  l ->
                      CONSOLE.matcher(l).matches()
                          && l.contains("\tINFO\t")
                          && l.contains("metrics 127.0.0.1:"))
              // Debug lines of the policy's reconcile (the first operator already applied
              // its objects, so this one may log nothing at info about it).
              .anyMatch(
                  l ->
                      CONSOLE.matcher(l).matches()
                          && l.contains("\tDEBUG\t")
                          && l.contains("\"controllerKind\": \"ClusterPolicy\""));
        });
    stop(d);
    List<String> text = Files.readAllLines(devel);
    // Console text only: no JSON line, and every line that is not a message's continuation is
    // zap's console line.
    assertThat(text).noneMatch(l -> l.startsWith("{"));
    assertThat(text.stream().filter(l -> !l.isEmpty() && !Character.isWhitespace(l.charAt(0))))
        .allMatch(l -> CONSOLE.matcher(l).matches());
    System.out.printf("ZapLoggingIT: operator --zap-devel, %d console lines%n", text.size());
  }

  @Test
  void anAgentWritesZapJsonLinesByDefaultAndConsoleTextWithZapDevel() throws Exception {
    String[] agent = {
      "feature-discovery",
      "--backend=simulated",
      "--node-profile=dgx-h100",
      "--oneshot",
      "--output=node-labels",
      "--node-name=" + NODE
    };
    Path log = run("feature-discovery-json", agent);
    assertThat(exit(STARTED.get(STARTED.size() - 1))).as("exit code; see %s", log).isZero();
    List<JsonNode> lines = jsonLines(log);
    // controller-runtime's defaults without flags: info, the time as RFC 3339.
    for (JsonNode line : lines) {
      assertThat(line.get("ts").asText()).as("ts of %s", line).matches(RFC3339);
    }
    assertThat(lines)
        .anyMatch(
            l ->
                l.get("level").asText().equals("info")
                    && l.get("msg").asText().startsWith("kind=Node name=" + NODE + ": labels"));
    assertThat(admin.nodes().withName(NODE).get().getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.count", "8");

    List<String> develArgs = new ArrayList<>(List.of(agent));
    develArgs.add("--zap-devel");
    Path devel = run("feature-discovery-devel", develArgs.toArray(String[]::new));
    assertThat(exit(STARTED.get(STARTED.size() - 1))).as("exit code; see %s", devel).isZero();
    List<String> text = Files.readAllLines(devel);
    assertThat(text).isNotEmpty().noneMatch(l -> l.startsWith("{"));
    assertThat(text)
        .anyMatch(l -> CONSOLE.matcher(l).matches() && l.contains("\tDEBUG\t"))
        .anyMatch(
            l -> CONSOLE.matcher(l).matches() && l.contains("\tINFO\t") && l.contains("labels"));
  }

  /**
   * A SIGTERM while the controllers start (a rollout replacing a pod that has just started) is a
   * stop as asked: the exit code of any SIGTERM (143, as the help's exit codes say) and JSON lines
   * to the end, no "internal error" line.
   */
  @Test
  void aSigtermWhileTheControllersStartIsAStop() throws Exception {
    Path log = run("operator-early-stop", "operator", "--leader-elect=false");
    Process p = STARTED.get(STARTED.size() - 1);
    awaitLogged(
        p,
        log,
        Duration.ofMillis(20),
        lines -> assertThat(lines).anyMatch(l -> l.contains("Starting '")));
    p.destroy();
    assertThat(exit(p)).as("exit code; see %s", log).isEqualTo(143);
    assertThat(Files.readAllLines(log)).noneMatch(l -> l.contains("internal error"));
    assertThat(jsonLines(log)).isNotEmpty();
  }

  @Test
  void aBadValueIsOneLineAndExitCode2() throws Exception {
    Path log = run("operator-bad", "operator", "--zap-log-level=warn");
    assertThat(exit(STARTED.get(STARTED.size() - 1))).isEqualTo(2);
    assertThat(Files.readAllLines(log).get(0))
        .contains("--zap-log-level")
        .contains("invalid log level \"warn\" (debug, info, error, panic or an integer > 0)");
    Path agent = run("validator-bad", "validator", "--zap-time-encoding=unix");
    assertThat(exit(STARTED.get(STARTED.size() - 1))).isEqualTo(2);
    assertThat(Files.readAllLines(agent).get(0))
        .contains("--zap-time-encoding")
        .contains("invalid time-encoding value \"unix\"");
  }

  @Test
  void aFailureOnceLoggingIsSetUpIsAZapLine() throws Exception {
    // Bad input found by the command itself, after the flags parsed: still exit 2, as a log line.
    Path log =
        run(
            "feature-discovery-failed",
            "feature-discovery",
            "--backend=simulated",
            "--node-profile=dgx-h100",
            "--oneshot",
            "--output=node-labels");
    assertThat(exit(STARTED.get(STARTED.size() - 1))).as("exit code; see %s", log).isEqualTo(2);
    JsonNode failure = jsonLines(log).get(jsonLines(log).size() - 1);
    assertThat(failure.get("level").asText()).isEqualTo("error");
    assertThat(failure.get("logger").asText()).isEqualTo("setup");
    assertThat(failure.get("msg").asText())
        .isEqualTo(
            "gpu-operator feature-discovery: --node-name (or NODE_NAME) is required for output"
                + " node-labels");
    // controller-runtime's default stack trace level for an agent: error lines carry one.
    assertThat(failure.get("stacktrace").asText()).isNotBlank();
  }

  /**
   * Starts {@code java -jar gpu-operator.jar args} against the API server with only what a pod
   * would have in its environment; its output goes to a file in failsafe's reports.
   */
  private static Path run(String name, String... args) throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(System.getProperty("java.home") + "/bin/java");
    List<String> cmd =
        new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar"));
    cmd.add(JAR.toString());
    cmd.addAll(List.of(args));
    cmd.add("--kubeconfig=" + cp.kubeconfig());
    if (args[0].equals("operator")) {
      cmd.add("--metrics-bind-address=127.0.0.1:0");
      cmd.add("--health-probe-bind-address=127.0.0.1:0");
    }
    Files.createDirectories(LOGS);
    Path log = LOGS.resolve("ZapLoggingIT-" + name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    pb.environment().clear();
    pb.environment().put("OPERATOR_NAMESPACE", NS);
    STARTED.add(pb.start());
    return log;
  }

  /**
   * Waits (up to 2 min, reading the log every {@code poll}) until {@code check} passes on the log
   * while the process still runs.
   */
  private static void awaitLogged(
      Process p, Path log, Duration poll, ThrowingConsumer<List<String>> check) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(poll)
        .untilAsserted(
            () -> {
              assertThat(p.isAlive()).as("operator running; see %s", log).isTrue();
              check.accept(Files.readAllLines(log));
            });
  }

  /**
   * Every controller of the operator started: a SIGTERM before would interrupt JOSDK's start, which
   * the operator reports as a failure rather than a log line.
   */
  private static void assertStarted(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    long starting = lines.stream().filter(l -> l.contains("Starting '")).count();
    assertThat(starting).as("controllers starting; see %s", log).isPositive();
    assertThat(lines.stream().filter(l -> l.contains("' controller started")))
        .as("controllers started; see %s", log)
        .hasSize((int) starting);
  }

  /** SIGTERM, as the kubelet stops a pod, and its shutdown lines written. */
  private static void stop(Process p) throws InterruptedException {
    p.destroy();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stops on SIGTERM").isTrue();
  }

  private static int exit(Process p) throws InterruptedException {
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("ends on its own").isTrue();
    return p.exitValue();
  }

  /** Every line parsed as a JSON object starting with zap's level and ts keys. */
  private static List<JsonNode> jsonLines(Path log) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException e) {
        throw new AssertionError(log + ": not a JSON line: " + line, e);
      }
      assertThat(node.isObject()).as("an object: %s", line).isTrue();
      List<String> keys = new ArrayList<>();
      node.fieldNames().forEachRemaining(keys::add);
      assertThat(keys).as("keys of %s", line).startsWith("level", "ts").contains("msg");
      assertThat(node.get("level").isTextual()).isTrue();
      assertThat(node.get("msg").isTextual()).isTrue();
      if (node.has("logger")) {
        assertThat(keys.indexOf("logger")).as("logger before msg").isEqualTo(2);
      }
      out.add(node);
    }
    assertThat(out).as("lines in %s", log).isNotEmpty();
    return out;
  }
}
