package io.gpuoperator.cli.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.config.cli.CommandLines;
import io.gpuoperator.node.validator.ValidatorCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 19.7: a seeded generator of mutated ClusterPolicies, cluster files, device-plugin configs,
 * node profiles and agent flags, each run through the real command in-process. For every case: exit
 * 0, 1 or 2; no stack trace and no Java type name in what the user sees; a bad input's message
 * names a field, a line or a setting; nothing is started for bad input; and no case runs longer
 * than 10 s. The kept corpus ({@code src/test/resources/fuzz/}) holds the inputs of the bugs found
 * so far and runs first, every time.
 *
 * <p>{@code -Dfuzz.seed=N} and {@code -Dfuzz.cases=N} (default 2,000) reproduce or widen a run; a
 * failure prints the seed, the case and the input's file.
 */
class InputFuzzTest {
  static final long SEED = Long.getLong("fuzz.seed", 19L);
  static final int CASES = Integer.getInteger("fuzz.cases", 2000);
  static final Duration LIMIT = Duration.ofSeconds(10);

  /** A user-facing message must not carry these. */
  static final Pattern TRACE =
      Pattern.compile(
          "\\tat |Exception|java\\.(lang|util|io|nio)|com\\.fasterxml|org\\.yaml|io\\.fabric8|`");

  /** A bad input's message points somewhere: file:line, a field path, a flag or a variable. */
  static final Pattern POINTS_AT =
      Pattern.compile(
          ":\\d+(:\\d+)?[ :]|\\.(yaml|yml|json|toml)[: ]|(^|\\s|\")--?[a-z][a-z-]*[:=\" ]|\\b[A-Z][A-Z0-9_]{2,}: |\\b[a-z][A-Za-z0-9]*(\\.[A-Za-z0-9.\\[\\]-]+)+: |spec[.\\[]|nodes\\[|Unknown option|Missing required|not a valid ClusterPolicy");

  @TempDir static Path dir;
  static ExecutorService runner;
  static Map<String, String> seeds;

  record Case(String kind, String name, List<String> args, Map<String, String> env, Path input) {}

  record Outcome(int code, String out, String err, Duration took) {}

  @BeforeAll
  static void seeds() {
    runner =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "fuzz-case");
              t.setDaemon(true);
              return t;
            });
    seeds = new TreeMap<>();
    seeds.put("policy", resource("/io/gpuoperator/api/samples/clusterpolicy.yaml"));
    seeds.put("cluster", resource("/fuzz/seeds/cluster.yaml"));
    seeds.put("dpconfig", resource("/fuzz/seeds/dpconfig.yaml"));
    seeds.put("profile", resource("/io/gpuoperator/node/gpu/nodes/dgx-h100-mig-mixed.yaml"));
  }

  @AfterAll
  static void stop() {
    runner.shutdownNow();
  }

  @Test
  void keptCorpusAndSeededMutationsNeverCrashHangOrHideWhereTheProblemIs() throws Exception {
    List<Case> cases = new ArrayList<>(corpus());
    Mutator m = new Mutator(SEED);
    for (int i = 0; i < CASES; i++) {
      cases.add(generated(m, i));
    }
    for (String kind : List.of("policy", "cluster", "dpconfig", "profile")) {
      run(forInput(kind, "warm-up-" + kind, seedFile(kind))); // class loading is not a case's time
    }
    List<String> failures = new ArrayList<>();
    Map<String, long[]> timeByKind = new TreeMap<>();
    Map<Integer, Integer> byCode = new TreeMap<>();
    Duration slowest = Duration.ZERO;
    String slowestCase = "";
    for (Case c : cases) {
      Outcome o = run(c);
      byCode.merge(o.code(), 1, Integer::sum);
      long[] t = timeByKind.computeIfAbsent(c.kind(), k -> new long[2]);
      t[0]++;
      t[1] += o.took().toMillis();
      if (o.took().compareTo(slowest) > 0) {
        slowest = o.took();
        slowestCase = c.name();
      }
      String problem = judge(c, o);
      if (problem != null && failures.size() < 40) {
        failures.add(
            c.name()
                + " ("
                + c.kind()
                + ", input "
                + keep(c)
                + "): "
                + problem
                + "\n    args: "
                + c.args()
                + "\n    exit "
                + o.code()
                + ", stderr: "
                + abbreviate(o.err())
                + "\n    stdout: "
                + abbreviate(o.out()));
      }
    }
    StringBuilder perKind = new StringBuilder();
    timeByKind.forEach(
        (k, t) ->
            perKind
                .append(k)
                .append(' ')
                .append(t[0])
                .append('x')
                .append(t[1] / t[0])
                .append("ms "));
    System.out.printf(
        "fuzz: seed %d, %d cases (%d kept), exit codes %s, slowest %d ms (%s); %s%n",
        SEED, cases.size(), cases.size() - CASES, byCode, slowest.toMillis(), slowestCase, perKind);
    assertThat(failures).as("seed %d", SEED).isEmpty();
    assertThat(cases.size()).isGreaterThanOrEqualTo(2000);
  }

  /** Why an outcome is wrong, or null. */
  static String judge(Case c, Outcome o) {
    if (o.code() < 0) {
      return "ran longer than " + LIMIT.toSeconds() + " s";
    }
    if (o.code() > 2) {
      return "exit code " + o.code() + " (expected 0, 1 or 2)";
    }
    if (TRACE.matcher(o.err()).find() || TRACE.matcher(o.out()).find()) {
      return "a stack trace or Java type name reached the user";
    }
    if (o.code() == 2 && !POINTS_AT.matcher(o.err()).find()) {
      return "the message names no field, line or setting";
    }
    if (o.code() != 0 && o.err().isBlank()) {
      return "failed without saying why";
    }
    if (o.code() != 0 && o.out().contains("starting etcd")) {
      return "something was started for bad input";
    }
    if (o.code() == 1 && !c.kind().equals("validator")) {
      return "exit 1 (the environment failed) for an input problem";
    }
    return null;
  }

  static Outcome run(Case c) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl =
        c.kind().equals("validator")
            ? CommandLines.configure(
                new CommandLine(new ValidatorCommand(c.env(), () -> null, null)))
            : GpuOperatorCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    long t0 = System.nanoTime();
    Future<Integer> f = runner.submit(() -> cl.execute(c.args().toArray(String[]::new)));
    int code;
    try {
      code = f.get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      runner.shutdownNow();
      runner = Executors.newSingleThreadExecutor();
      code = -1;
    } catch (Exception e) {
      code = 99;
      err.write(e.toString());
    }
    return new Outcome(
        code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - t0));
  }

  private static Case generated(Mutator m, int i) throws IOException {
    int pick = m.nextInt(100);
    String kind =
        pick < 35
            ? "policy"
            : pick < 60 ? "cluster" : pick < 75 ? "dpconfig" : pick < 85 ? "profile" : "flags";
    String name = "case-" + i;
    if (kind.equals("flags")) {
      return flagsCase(m, name);
    }
    String text = m.mutate(seeds.get(kind));
    Path input = dir.resolve(name + ".yaml");
    Files.writeString(input, text, StandardCharsets.UTF_8);
    return forInput(kind, name, input);
  }

  static Case forInput(String kind, String name, Path input) {
    Path work = dir.resolve(name + ".d");
    return switch (kind) {
      case "policy" ->
          new Case(kind, name, List.of("plan", "-f", input.toString()), Map.of(), input);
      case "cluster" ->
          new Case(
              kind,
              name,
              List.of(
                  "simulate",
                  "--dry-run",
                  "--cluster-file",
                  input.toString(),
                  "--kubeconfig-out",
                  work.resolve("kubeconfig").toString()),
              Map.of(),
              input);
      case "dpconfig" ->
          new Case(
              kind,
              name,
              gfd(work, "--node-profile=dgx-h100", "--config-file=" + input),
              Map.of(),
              input);
      case "profile" -> new Case(kind, name, gfd(work, "--node-profile=" + input), Map.of(), input);
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static List<String> gfd(Path work, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "feature-discovery",
                "--backend=simulated",
                "--oneshot",
                "--no-timestamp",
                "--output=file",
                "--output-file=" + work.resolve("gfd")));
    args.addAll(List.of(more));
    return args;
  }

  /** A bad value for one flag or variable of an agent that finishes on its own. */
  private static Case flagsCase(Mutator m, String name) {
    Path work = dir.resolve(name + ".d");
    String value = m.pick(Mutator.EVIL);
    int which = m.nextInt(3);
    if (which == 0) {
      String flag =
          m.pick(
              List.of(
                  "--mig-strategy",
                  "--sleep-interval",
                  "--namespace",
                  "--output",
                  "--fail-on-init-error",
                  "--use-node-feature-api",
                  "--machine-type-file",
                  "--node-name",
                  "--node-profile",
                  "--backend"));
      List<String> args = gfd(work, "--node-profile=l4-x1");
      args.add(flag + "=" + value);
      return new Case("flags", name, args, Map.of(), null);
    }
    if (which == 1) {
      String flag = m.pick(List.of("--namespace", "--output", "--nodes", "--kubeconfig"));
      return new Case(
          "flags",
          name,
          List.of("plan", "-f", seedFile("policy").toString(), flag, value),
          Map.of(),
          null);
    }
    // The validator's driver step over a simulated node, with one bad variable.
    String var =
        m.pick(
            List.of(
                "VALIDATION_TIMEOUT",
                "SLEEP_INTERVAL",
                "RUNTIME",
                "OPERATOR_NAMESPACE",
                "CUDA_WORKLOAD_IMAGE",
                "CDI_ENABLED",
                "NODE_NAME",
                "GPU_BACKEND"));
    Map<String, String> env = new TreeMap<>();
    env.put("GPU_BACKEND", "simulated");
    env.put("GPU_NODE_PROFILE", "l4-x1");
    env.put("VALIDATIONS_DIR", work.resolve("validations").toString());
    env.put("NVIDIA_DRIVER_ROOT", work.resolve("driver").toString());
    env.put(var, value);
    return new Case("validator", name, List.of("--component", "driver"), env, null);
  }

  private static Path seedFile(String kind) {
    Path p = dir.resolve("seed-" + kind + ".yaml");
    if (!Files.exists(p)) {
      try {
        Files.writeString(p, seeds.get(kind));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return p;
  }

  /** The kept corpus: {@code fuzz/corpus/<kind>/<name>.yaml}, every input a bug was found with. */
  static List<Case> corpus() throws IOException {
    List<Case> out = new ArrayList<>();
    Path root = Path.of("src/test/resources/fuzz/corpus");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        String kind = f.getParent().getFileName().toString();
        out.add(forInput(kind, "corpus/" + kind + "/" + f.getFileName(), f));
      }
    }
    return out;
  }

  /** Keeps a failing generated input under target/ for adding to the corpus. */
  private static String keep(Case c) {
    if (c.input() == null) {
      return "(flags)";
    }
    try {
      Path kept = Path.of("target/fuzz-failures").resolve(c.kind());
      Files.createDirectories(kept);
      Path to = kept.resolve(c.input().getFileName());
      Files.copy(c.input(), to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return to.toString();
    } catch (IOException e) {
      return c.input().toString();
    }
  }

  private static String abbreviate(String s) {
    String one = s.replace("\n", "\\n");
    return one.length() > 400 ? one.substring(0, 400) + "…" : one;
  }

  private static String resource(String name) {
    try (InputStream in = InputFuzzTest.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
