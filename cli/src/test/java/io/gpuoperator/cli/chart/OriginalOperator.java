package io.gpuoperator.cli.chart;

import io.gpuoperator.sim.controlplane.K8sVersions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * NVIDIA's original GPU Operator as a process against an API server, from the build {@code
 * scripts/original-operator.sh} caches. The binary reads its operand manifests from the hard-coded
 * {@code /opt/gpu-operator} and the host's os-release from {@code /host-etc}, so each run gets its
 * own root directory (a copy of the cached layout plus its kubeconfig) and the process is chrooted
 * into it: nothing on the host is touched, and nothing needs unmounting afterwards. chroot needs
 * root, which CI has.
 */
final class OriginalOperator implements AutoCloseable {

  /** Overrides the cache directory (the script's GPU_OPERATOR_ORIGINAL_DIR). */
  static final String DIR_PROPERTY = "gpu-operator.original.dir";

  private final Process process;
  private final Path log;

  private OriginalOperator(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Where the script put (or would put) the build of the pinned version. */
  static Path cacheDir() {
    String dir = System.getProperty(DIR_PROPERTY, System.getenv("GPU_OPERATOR_ORIGINAL_DIR"));
    if (dir != null && !dir.isBlank()) {
      return Path.of(dir);
    }
    return K8sVersions.cacheRoot()
        .resolve("original-operator")
        .resolve(K8sVersions.ORIGINAL_OPERATOR);
  }

  /** Why the original cannot run here, or null where it can. */
  static String unavailable() throws IOException {
    Path dir = cacheDir();
    if (!Files.exists(dir.resolve(".complete"))
        || !Files.isExecutable(dir.resolve("root/usr/bin/gpu-operator"))) {
      return "NVIDIA's operator is not built in "
          + dir
          + ": run scripts/original-operator.sh (scripts/test-deps.sh calls it)";
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      return "running NVIDIA's operator needs chroot, so root (its manifest path is hard-coded)";
    }
    return null;
  }

  /** The original's CRDs (ClusterPolicy, NVIDIADriver, NFD's API), as its chart installs them. */
  static List<Path> crds() throws IOException {
    try (Stream<Path> s = Files.list(cacheDir().resolve("crds"))) {
      return s.sorted().toList();
    }
  }

  /**
   * Starts the original in a fresh root under {@code work}, with the chart's environment (its
   * namespace) and an admin kubeconfig; its output goes to {@code log}.
   */
  static OriginalOperator start(Path work, String kubeconfig, String namespace, Path log)
      throws IOException {
    return start(work, kubeconfig, namespace, log, false);
  }

  /**
   * As {@link #start(Path, String, String, Path)}; with {@code leaderElect} it also runs as its
   * chart runs it, with {@code --leader-elect}: controller-runtime then takes the Lease's namespace
   * from the in-cluster service account file (the binary has no flag for it), which the root gets.
   */
  static OriginalOperator start(
      Path work, String kubeconfig, String namespace, Path log, boolean leaderElect)
      throws IOException {
    Path root = work.resolve("root");
    copyTree(cacheDir().resolve("root"), root);
    Files.createDirectories(root.resolve("host-etc"));
    // The simulated nodes' OS; the original reads the host's for its driver state.
    Files.writeString(
        root.resolve("host-etc/os-release"), "ID=ubuntu\nVERSION_ID=\"22.04\"\nNAME=\"Ubuntu\"\n");
    Files.createDirectories(root.resolve("tmp"));
    Files.writeString(root.resolve("kubeconfig"), kubeconfig);
    Files.createDirectories(log.getParent());
    List<String> cmd = new ArrayList<>();
    cmd.add("chroot");
    cmd.add(root.toString());
    cmd.add("/usr/bin/gpu-operator");
    // Loopback and ephemeral ports: several tests may run one at a time on a shared machine.
    cmd.add("--metrics-bind-address=127.0.0.1:0");
    cmd.add("--health-probe-bind-address=127.0.0.1:0");
    if (leaderElect) {
      Path account = root.resolve("var/run/secrets/kubernetes.io/serviceaccount");
      Files.createDirectories(account);
      Files.writeString(account.resolve("namespace"), namespace);
      cmd.add("--leader-elect");
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("OPERATOR_NAMESPACE", namespace);
    pb.environment().put("KUBECONFIG", "/kubeconfig");
    return new OriginalOperator(pb.start(), log);
  }

  /** The operator's own pid (chroot execs it), for reading its /proc figures. */
  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The last lines of its log, for a failure message. */
  String tail(int lines) {
    return tail(log, lines);
  }

  /** The last lines of a process's log file, or why there are none. */
  static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Stops the process as Kubernetes stops a pod: SIGTERM, then SIGKILL after a grace period. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(Duration.ofSeconds(15).toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          try (InputStream in = Files.newInputStream(p)) {
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
          }
          if (Files.isExecutable(p)) {
            target.toFile().setExecutable(true);
          }
        }
      }
    }
  }
}
