package io.gpuoperator.cli.realnode;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.controlplane.RunDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real node for end-to-end tests: {@code scripts/real-node.sh up} (containerd, runc, a CNI bridge
 * and the kubelet of the control plane's version) joined to a {@link ControlPlane}, with the
 * project image imported. The script holds the node in the foreground and tears it down in its
 * trap; {@link #close()} deletes the pods the way a drained node does, stops the script and checks
 * with {@code real-node.sh check} that nothing is left (process, mount, cgroup, iptables chain,
 * bridge, ip_forward). The script also watches this JVM: if it dies, the node is torn down anyway.
 *
 * <p>On a machine without GPUs the node gets simulated ones: the driver's device nodes ({@code
 * /dev/nvidia*}, character devices with NVIDIA's numbers that no driver answers) and the node
 * profile in {@link #SIMULATED_DIR}, where the agents' simulated backend reads them when the
 * operator runs with {@code SIMULATED_HARDWARE_DIR} (docs/real-node.md, "Simulated hardware on a
 * real node").
 */
public final class RealNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RealNode.class);

  /** The repository root (tests run in a module folder). */
  public static final Path REPO = findRepo();

  /** The host folder of the simulated hardware's node profile (the chart's default). */
  public static final String SIMULATED_DIR = "/etc/gpu-operator/simulated";

  /** The suite's workload image (Debian's busybox-static), built by scripts/node-binaries.sh. */
  public static final String BUSYBOX = "gpu-operator.local/busybox:debian";

  /** containerd's socket (its default path: the toolkit agent finds it there, as on any node). */
  public static final String CONTAINERD_SOCKET = "/run/containerd/containerd.sock";

  /** containerd's configuration (its default path). */
  public static final Path CONTAINERD_CONFIG = Path.of("/etc/containerd/config.toml");

  /** NVIDIA's character device numbers: GPUs and the control nodes (nvidia-uvm's is dynamic). */
  private static final int NVIDIA_MAJOR = 195;

  private static final int UVM_MAJOR = 510;

  private final ControlPlane cp;
  private final String name;
  private final Path dir;
  private final Process script;
  private final String ipForward;
  private final List<String> paths;

  private RealNode(
      ControlPlane cp,
      String name,
      Path dir,
      Process script,
      String ipForward,
      List<String> paths) {
    this.cp = cp;
    this.name = name;
    this.dir = dir;
    this.script = script;
    this.ipForward = ipForward;
    this.paths = paths;
  }

  /** Why a real node cannot run here, or null when it can (root, Linux, the script present). */
  public static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "a real node needs root (the kubelet, containerd and runc manage mounts, cgroups and"
          + " network namespaces)";
    }
    if (!Files.isExecutable(REPO.resolve("scripts/real-node.sh"))) {
      return "no scripts/real-node.sh under " + REPO;
    }
    return null;
  }

  /** The control plane a real node joins: every controller, the scheduler, the node's identity. */
  public static ControlPlane.Builder controlPlane() {
    return ControlPlane.builder()
        .controllerManager(true)
        .scheduler(true)
        .nodes(List.of(hostName()))
        // The kubelet serves on 127.0.0.1 and the node's name resolves there; its InternalIP is
        // the machine's address, where nothing listens (the kubelet refuses a loopback node IP).
        .apiServerArg("--kubelet-preferred-address-types=Hostname");
  }

  /**
   * Brings the node up and waits until it is Ready.
   *
   * @param images OCI archives to import into containerd (pods use them without pulling)
   * @param simulatedProfile a node profile (built-in name or file) whose GPUs the node simulates,
   *     or null for the machine's own GPUs
   */
  public static RealNode start(ControlPlane cp, List<Path> images, String simulatedProfile)
      throws IOException, InterruptedException {
    String name = hostName();
    Path dir = Files.createTempDirectory("gpu-operator-node-");
    Path kubeconfig = dir.resolve("kubelet.kubeconfig");
    Files.writeString(kubeconfig, cp.kubeconfigFor("system:node:" + name));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                REPO.resolve("scripts/real-node.sh").toString(),
                "up",
                "--kubeconfig",
                kubeconfig.toString(),
                "--api-port",
                Integer.toString(URI.create(cp.apiServerUrl()).getPort()),
                "--dir",
                dir.toString(),
                "--node-name",
                name,
                "--owner-pid",
                Long.toString(ProcessHandle.current().pid())));
    for (Path image : images) {
      cmd.add("--image");
      cmd.add(image.toString());
    }
    if (simulatedProfile != null) {
      Path profile = dir.resolve("node-profile.yaml");
      Files.writeString(profile, profileYaml(simulatedProfile));
      cmd.add("--simulated-profile");
      cmd.add(profile.toString());
      cmd.add("--simulated-dir");
      cmd.add(SIMULATED_DIR);
      deviceNodes(simulatedProfile)
          .forEach(
              (path, number) -> {
                cmd.add("--device");
                cmd.add(path + "=" + number);
              });
    }
    Path log = dir.resolve("real-node.log");
    String ipForward = ipForward();
    List<String> paths = paths();
    Process script =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    RealNode node = new RealNode(cp, name, dir, script, ipForward, paths);
    try {
      long t0 = System.nanoTime();
      await()
          .atMost(Duration.ofMinutes(15)) // a cold machine builds the node's binaries first
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                if (!script.isAlive()) {
                  throw new IllegalStateException(
                      "scripts/real-node.sh up exited with "
                          + script.exitValue()
                          + "; its output:\n"
                          + tail(log, 40));
                }
                return node.ready();
              });
      LOG.info(
          "real node {} Ready in {} s (dir {})",
          name,
          (System.nanoTime() - t0) / 1_000_000_000,
          dir);
      return node;
    } catch (RuntimeException | Error e) {
      node.close();
      throw e;
    }
  }

  /** The node Ready, and the cluster able to take pods (the default ServiceAccount exists). */
  private boolean ready() {
    if (cp.client().serviceAccounts().inNamespace("default").withName("default").get() == null) {
      return false;
    }
    Node n = cp.client().nodes().withName(name).get();
    if (n == null || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return false;
    }
    return n.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The node's name (this machine's host name). */
  public String name() {
    return name;
  }

  /** Configs and logs of the node ({@code logs/} holds containerd's and the kubelet's). */
  public Path dir() {
    return dir;
  }

  /** The node's Ready condition, for messages. */
  public String readiness() {
    Node n = cp.client().nodes().withName(name).get();
    return n == null
        ? "no Node " + name
        : n.getStatus().getConditions().stream()
            .filter(c -> "Ready".equals(c.getType()))
            .map(NodeCondition::getMessage)
            .findFirst()
            .orElse("no Ready condition");
  }

  /** Runs {@code ctr} against the node's containerd (namespace k8s.io); returns its output. */
  public String ctr(String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "/run/gpu-operator-node/bin/ctr", "--address", CONTAINERD_SOCKET, "-n", "k8s.io"));
    cmd.addAll(List.of(args));
    // Its output alone: ctr warns on stderr (cgroup v1) before JSON on stdout.
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + ")");
    }
    return out;
  }

  /** How often containerd started (its log's start lines): the toolkit's restarts show here. */
  public int containerdStarts() throws IOException {
    try (var lines = Files.lines(dir.resolve("logs/containerd.log"))) {
      return (int) lines.filter(l -> l.contains("msg=\"starting containerd\"")).count();
    }
  }

  /** The OCI runtime spec containerd generated for a container ({@code containerd://ID}). */
  public JsonNode ociSpec(String containerId) throws IOException, InterruptedException {
    JsonNode info = new ObjectMapper().readTree(ctr("containers", "info", bare(containerId)));
    return info.path("Spec");
  }

  /** The host PID of a running container's first process. */
  public long pid(String containerId) throws IOException, InterruptedException {
    for (String line : ctr("tasks", "ls").lines().skip(1).toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 2 && f[0].equals(bare(containerId))) {
        return Long.parseLong(f[1]);
      }
    }
    throw new IllegalStateException("no running task for container " + containerId);
  }

  /** The project image as scripts/image.sh writes it. */
  public static Path projectImageArchive() {
    return REPO.resolve(
        "cli/target/image/gpu-operator-" + OperandImages.projectVersion() + ".oci.tar");
  }

  /**
   * Why the project image cannot be used, or null: it is missing, or older than a source file of
   * the agents it runs (then the suite would test old code).
   */
  public static String projectImageProblem() throws IOException {
    Path image = projectImageArchive();
    if (!Files.isRegularFile(image)) {
      return "no project image at " + image + ": build it with scripts/image.sh";
    }
    var built = Files.getLastModifiedTime(image);
    for (String module : List.of("api", "config", "kubelet-api", "node", "operator", "cli")) {
      Path src = REPO.resolve(module).resolve("src/main");
      if (!Files.isDirectory(src)) {
        continue;
      }
      try (var files = Files.walk(src)) {
        var newer = files.filter(Files::isRegularFile).filter(f -> newerThan(f, built)).findFirst();
        if (newer.isPresent()) {
          return "the project image "
              + image
              + " is older than "
              + newer.get()
              + ": rebuild it with scripts/image.sh";
        }
      }
    }
    return null;
  }

  private static boolean newerThan(Path f, java.nio.file.attribute.FileTime t) {
    try {
      return Files.getLastModifiedTime(f).compareTo(t) > 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The archive of {@link #BUSYBOX} (scripts/node-binaries.sh builds it once, then it is cached).
   */
  public static Path busyboxArchive() throws IOException, InterruptedException {
    String out = run(List.of(REPO.resolve("scripts/node-binaries.sh").toString()));
    List<String> lines = out.strip().lines().toList();
    return Path.of(lines.get(lines.size() - 1)).resolve("busybox.oci.tar");
  }

  /**
   * Packets the node's FORWARD rule has dropped (from or to the pod subnet): what pods sent towards
   * anything beyond this machine.
   */
  public long forwardDrops() throws IOException, InterruptedException {
    long sum = 0;
    for (String line :
        run(List.of("iptables", "-w", "-L", "GPU-OPERATOR-NODE", "-v", "-x", "-n"))
            .lines()
            .toList()) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 2 && f[2].equals("DROP")) {
        sum += Long.parseLong(f[0]);
      }
    }
    return sum;
  }

  /** This machine's GPU device nodes ({@code /dev/nvidia<minor>}), in order. */
  public static List<Path> gpuDeviceNodes() {
    try (var s = Files.list(Path.of("/dev"))) {
      return s.filter(p -> p.getFileName().toString().matches("nvidia[0-9]+")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A character device's {@code <major>:<minor>}, as {@code /dev/char} names its link. */
  public static String deviceNumber(Path node) throws IOException {
    long rdev = (Long) Files.getAttribute(node, "unix:rdev");
    long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
    long minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
    return major + ":" + minor;
  }

  /** {@code /proc/<pid>/status} of a host process, by field. */
  public static Map<String, String> procStatus(long pid) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        out.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return out;
  }

  private static String bare(String containerId) {
    int i = containerId.indexOf("://");
    return i < 0 ? containerId : containerId.substring(i + 3);
  }

  /**
   * Deletes every pod left on the node (workloads first, so the device plugin and DRA driver are
   * still there to release their devices), stops the script (its trap tears the node down) and
   * fails when {@code real-node.sh check} finds anything left.
   */
  @Override
  public void close() {
    hold();
    copyPodLogs();
    try {
      KubernetesClient c = cp.client();
      deletePods(c, false);
      deletePods(c, true);
    } catch (RuntimeException e) {
      LOG.warn("deleting the node's pods: {}", e.toString());
    }
    if (script.isAlive()) {
      script.destroy(); // SIGTERM: the trap tears down
      try {
        if (!script.waitFor(3, TimeUnit.MINUTES)) {
          script.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    String left = check();
    LOG.info("real node {} stopped: {}", name, left.strip());
    keepLogs();
    if (!left.startsWith("nothing")) {
      throw new AssertionError("the real node left things behind:\n" + left);
    }
    if (!ipForward().equals(ipForward)) {
      throw new AssertionError(
          "net.ipv4.ip_forward is " + ipForward() + " after the node, was " + ipForward);
    }
    List<String> now = paths();
    if (!now.equals(paths)) {
      throw new AssertionError("host paths before the node: " + paths + ", after: " + now);
    }
  }

  /** The host paths a node creates that exist now ({@code real-node.sh paths}). */
  private static List<String> paths() {
    try {
      return run(List.of(REPO.resolve("scripts/real-node.sh").toString(), "paths"))
          .lines()
          .filter(l -> !l.isBlank())
          .toList();
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("real-node.sh paths failed: " + e, e);
    }
  }

  /**
   * With {@code -Dgpu-operator.real-node.hold=MINUTES}, keeps the node up that long before it is
   * torn down (or until the file {@code <node dir>/release} appears), to look at it by hand.
   */
  private void hold() {
    long minutes = Long.getLong("gpu-operator.real-node.hold", 0);
    if (minutes <= 0) {
      return;
    }
    Path release = dir.resolve("release");
    LOG.warn(
        "holding the real node for {} min: KUBECONFIG={}; touch {} to tear it down",
        minutes,
        cp.kubeconfig(),
        release);
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
    while (System.nanoTime() < end && !Files.exists(release)) {
      try {
        Thread.sleep(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Where the node's logs are kept after it is gone: {@code target/real-node-logs/}. */
  public static Path logsDir() {
    return Path.of("target", "real-node-logs").toAbsolutePath();
  }

  /** The containers' logs ({@code /var/log/pods}) into {@link #logsDir()}, before pods go. */
  private void copyPodLogs() {
    Path from = Path.of("/var/log/pods");
    Path to = dir.resolve("logs/pods");
    try (var files = Files.walk(from)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        Files.createDirectories(target.getParent());
        Files.copy(f, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      LOG.warn("copying the containers' logs: {}", e.toString());
    }
  }

  /**
   * Moves the node's logs (containerd, kubelet, the script's) to {@code target/real-node-logs/} of
   * the module, for a failure to be read after the run, and removes the node's folder.
   */
  private void keepLogs() {
    Path to = logsDir();
    try {
      RunDirs.deleteTree(to);
      Files.createDirectories(to);
      if (Files.isDirectory(dir.resolve("logs"))) {
        try (var logs = Files.list(dir.resolve("logs"))) {
          for (Path f : logs.toList()) {
            Files.move(f, to.resolve(f.getFileName()));
          }
        }
      }
      if (Files.exists(dir.resolve("real-node.log"))) {
        Files.move(dir.resolve("real-node.log"), to.resolve("real-node.log"));
      }
      LOG.info("real node logs in {}", to);
    } catch (IOException e) {
      LOG.warn("keeping the node's logs: {}", e.toString());
    } finally {
      RunDirs.deleteTree(dir);
    }
  }

  /** {@code net.ipv4.ip_forward}: "0" or "1". */
  public static String ipForward() {
    try {
      return Files.readString(Path.of("/proc/sys/net/ipv4/ip_forward")).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What a node left on this machine ({@code real-node.sh check}); "nothing ..." when clean. */
  public static String check() {
    try {
      return run(List.of(REPO.resolve("scripts/real-node.sh").toString(), "check"), true);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("real-node.sh check failed: " + e, e);
    }
  }

  private void deletePods(KubernetesClient c, boolean daemonSets) {
    var pods =
        c.pods().inAnyNamespace().withField("spec.nodeName", name).list().getItems().stream()
            .filter(
                p ->
                    daemonSets
                        == (p.getMetadata().getOwnerReferences() != null
                            && p.getMetadata().getOwnerReferences().stream()
                                .anyMatch(o -> "DaemonSet".equals(o.getKind()))))
            .toList();
    if (pods.isEmpty()) {
      return;
    }
    if (daemonSets) {
      // The DaemonSet controller would start them again.
      c.apps().daemonSets().inAnyNamespace().delete();
    }
    pods.forEach(p -> c.pods().resource(p).delete());
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  c
                      .pods()
                      .inAnyNamespace()
                      .withField("spec.nodeName", name)
                      .list()
                      .getItems()
                      .stream()
                      .noneMatch(
                          p ->
                              pods.stream()
                                  .anyMatch(
                                      q ->
                                          q.getMetadata()
                                              .getUid()
                                              .equals(p.getMetadata().getUid()))));
    } catch (RuntimeException e) {
      LOG.warn("pods still on {} after 90 s: {}", name, e.toString());
    }
  }

  /** The YAML of a node profile: a built-in one's resource, or the file. */
  private static String profileYaml(String nameOrFile) throws IOException {
    if (HardwareProfiles.BUILT_IN_NODES.contains(nameOrFile)) {
      try (var in =
          HardwareProfiles.class.getResourceAsStream(
              "/io/gpuoperator/node/gpu/nodes/" + nameOrFile + ".yaml")) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    }
    return Files.readString(Path.of(nameOrFile));
  }

  /**
   * The device nodes a driver for the profile's GPUs makes: {@code /dev/nvidia<minor>} per GPU, the
   * control nodes ({@code nvidiactl} 195:255, {@code nvidia-modeset} 195:254) and UVM's.
   */
  static Map<String, String> deviceNodes(String profile) {
    Map<String, String> out = new LinkedHashMap<>();
    try (SimulatedBackend gpus = new SimulatedBackend(HardwareProfiles.node(profile), hostName())) {
      for (GpuDevice d : gpus.devices()) {
        out.put("/dev/nvidia" + d.minor(), NVIDIA_MAJOR + ":" + d.minor());
      }
    }
    out.put("/dev/nvidiactl", NVIDIA_MAJOR + ":255");
    out.put("/dev/nvidia-modeset", NVIDIA_MAJOR + ":254");
    out.put("/dev/nvidia-uvm", UVM_MAJOR + ":0");
    out.put("/dev/nvidia-uvm-tools", UVM_MAJOR + ":1");
    return out;
  }

  /** This machine's host name: the node's name, which must resolve to 127.0.0.1. */
  public static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName().toLowerCase(java.util.Locale.ROOT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String run(List<String> cmd) throws IOException, InterruptedException {
    return run(cmd, false);
  }

  private static String run(List<String> cmd, boolean anyExit)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " did not finish in 60 s");
    }
    if (!anyExit && p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out);
    }
    return out;
  }

  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  private static Path findRepo() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isRegularFile(p.resolve("scripts/k8s-versions.env"))) {
      p = p.getParent();
    }
    return p == null ? Path.of("").toAbsolutePath() : p;
  }
}
