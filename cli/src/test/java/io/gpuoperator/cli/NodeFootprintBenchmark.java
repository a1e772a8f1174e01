package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.cli.simulate.ClusterOnNodes;
import io.gpuoperator.node.exporter.PodResourcesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, point 6: the resident memory of all our agents on one simulated 8-GPU node (H100, MIG
 * capable), each agent in its own JVM versus all in one {@code node-agents} JVM (each under its
 * deploy label, {@code --node-selector}, watching the Node as the operator deploys it), both with
 * the image's JVM flags (read from its launcher, {@code deploy/image/gpu-operator}). The agents run
 * for real against a real API server and the node's simulated kubelet (device-plugin registration
 * and pod-resources sockets): feature discovery labelling the Node, the device plugin registered,
 * the exporter serving, the MIG manager watching its Node, plus the validator's long-running part
 * (a shell loop around {@code sleep}). RSS is the largest sum of {@code VmRSS} seen over {@code
 * SAMPLE} after the agents are up. Run by {@code scripts/bench-node-footprint.sh} (needs the shaded
 * jar: failsafe, after {@code package}).
 */
class NodeFootprintBenchmark {
  static final String NODE = "footprint-h100";
  static final Duration SETTLE = Duration.ofSeconds(20);
  static final Duration SAMPLE = Duration.ofSeconds(20);
  static final Path JAR = Path.of("target/gpu-operator.jar");
  static final Path LAUNCHER = Path.of("../deploy/image/gpu-operator");

  @Test
  void allAgentsOnOneNodeSeparateJvmsVersusOne() throws Exception {
    assumeTrue(Boolean.getBoolean("benchmark"), "run with -Dbenchmark=true");
    assertThat(JAR).exists();
    List<String> jvm = jvmFlags();
    try (ClusterOnNodes c =
        ClusterOnNodes.apiServerOnly(NodeDescription.gpuNode(NODE, "H100-SXM5-80GB", 8))) {
      ControlPlane cp = c.cp();
      KubernetesClient admin = cp.client();
      NodeDirs dirs = c.cluster().kubelet(NODE).dirs();
      List<String> agents = agents(cp.kubeconfig(), dirs);

      List<Process> separate = new ArrayList<>();
      for (String agent : agents) {
        List<String> cmd = java(jvm);
        cmd.addAll(List.of(agent.split(" ")));
        separate.add(start(cmd, "separate-" + agent.split(" ")[0]));
      }
      separate.add(validatorLoop());
      long separateRss = measure(admin, separate);
      stop(separate);
      admin.nodes().withName(NODE).edit(n -> clearGfdLabels(n));

      // As the operator deploys it (NODE_AGENTS=true): each agent under its deploy label, so the
      // supervisor watches the Node too.
      Map<String, String> deploy = new java.util.LinkedHashMap<>();
      List<String> cmd = java(jvm);
      cmd.add("node-agents");
      for (String agent : agents) {
        cmd.add("--run");
        cmd.add(agent);
      }
      for (String agent : agents) {
        String name = agent.split(" ")[0];
        String label = "nvidia.com/gpu.deploy." + DEPLOY_LABELS.get(name);
        deploy.put(label, "true");
        cmd.add("--node-selector");
        cmd.add(name + "=" + label + "=true");
      }
      admin
          .nodes()
          .withName(NODE)
          .edit(
              n -> {
                n.getMetadata().getLabels().putAll(deploy);
                return n;
              });
      List<Process> one =
          new ArrayList<>(
              List.of(
                  start(
                      cmd,
                      "node-agents",
                      Map.of("NODE_NAME", NODE, "KUBECONFIG", cp.kubeconfig().toString())),
                  validatorLoop()));
      long oneRss = measure(admin, one);
      stop(one);

      double[] load = loadAverage();
      System.out.printf(
          Locale.ROOT,
          "BENCH node-footprint: %d agents + validator loop on one 8-GPU node:"
              + " separate JVMs %.1f MiB RSS, one node-agents JVM %.1f MiB RSS (%.2fx less);"
              + " JVM flags %s; load average %.2f %.2f %.2f%n",
          agents.size(),
          separateRss / 1024.0,
          oneRss / 1024.0,
          (double) separateRss / oneRss,
          String.join(" ", jvm),
          load[0],
          load[1],
          load[2]);
      assertThat(oneRss).isLessThan(separateRss);
    }
  }

  /** The agents of a container GPU node with the image's defaults, against the simulated node. */
  private static List<String> agents(Path kubeconfig, NodeDirs dirs) throws IOException {
    String common =
        " --backend=simulated --node-profile=dgx-h100 --node-name="
            + NODE
            + " --kubeconfig="
            + kubeconfig;
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path cdi = Files.createDirectories(dirs.cdi().resolve("footprint"));
    return List.of(
        "feature-discovery --output=node-labels --sleep-interval=60s" + common,
        "device-plugin --kubelet-socket="
            + dirs.hostPath("/var/lib/kubelet/device-plugins/kubelet.sock")
            + " --cdi-spec-dir="
            + cdi
            + common,
        "exporter --address=127.0.0.1:"
            + port
            + " --pod-resources-kubelet-socket="
            + dirs.hostPath(PodResourcesClient.DEFAULT_SOCKET)
            + " --backend=simulated --node-profile=dgx-h100 --node-name="
            + NODE,
        "mig-manager --namespace=default --host-root="
            + Files.createDirectories(dirs.host().resolve("footprint-root"))
            + common);
  }

  /** The image's JVM flags, from its launcher: one owner for them. */
  static List<String> jvmFlags() throws IOException {
    return jvmFlags(LAUNCHER);
  }

  /** The JVM flags of a launcher script (lines of the form {@code -X... \}). */
  static List<String> jvmFlags(Path launcher) throws IOException {
    List<String> out = new ArrayList<>();
    Matcher m =
        Pattern.compile("(?m)^\\s+(-[XD]\\S+)\\s*\\\\$").matcher(Files.readString(launcher));
    while (m.find()) {
      out.add(m.group(1));
    }
    assertThat(out).contains("-XX:+UseSerialGC");
    return out;
  }

  private static List<String> java(List<String> jvm) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvm);
    cmd.add("-jar");
    cmd.add(JAR.toString());
    return cmd;
  }

  private static Process start(List<String> cmd, String name) throws IOException {
    return start(cmd, name, Map.of());
  }

  private static Process start(List<String> cmd, String name, Map<String, String> env)
      throws IOException {
    Path log = Path.of("target", "footprint-" + name + ".log");
    ProcessBuilder b =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    b.environment().putAll(env);
    return b.start();
  }

  /** The operand (deploy label suffix) of each agent. */
  static final Map<String, String> DEPLOY_LABELS =
      Map.of(
          "feature-discovery", "gpu-feature-discovery",
          "device-plugin", "device-plugin",
          "exporter", "dcgm-exporter",
          "mig-manager", "mig-manager");

  /** The validator's long-running part, as its DaemonSet runs it. */
  private static Process validatorLoop() throws IOException {
    return start(
        List.of(
            "sh", "-c", "echo all validations are successful; while true; do sleep 86400; done"),
        "validator");
  }

  /** Waits until the agents are up (the Node labelled and advertising GPUs), then samples RSS. */
  private static long measure(KubernetesClient admin, List<Process> processes)
      throws InterruptedException {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              processes.forEach(p -> assertThat(p.isAlive()).as("process %s", p.pid()).isTrue());
              var node = admin.nodes().withName(NODE).get();
              assertThat(node.getMetadata().getLabels()).containsKey("nvidia.com/gpu.product");
              assertThat(node.getStatus().getAllocatable()).containsKey("nvidia.com/gpu");
            });
    Thread.sleep(SETTLE.toMillis());
    long max = 0;
    long end = System.nanoTime() + SAMPLE.toNanos();
    while (System.nanoTime() < end) {
      long sum = 0;
      for (Process p : processes) {
        assertThat(p.isAlive()).isTrue();
        sum += rssKiB(p);
      }
      max = Math.max(max, sum);
      Thread.sleep(1000);
    }
    return max;
  }

  /** VmRSS of a process and its children (the shell's sleep), in KiB. */
  static long rssKiB(Process p) {
    long kib = rssKiB(p.pid());
    for (ProcessHandle child : p.descendants().toList()) {
      kib += rssKiB(child.pid());
    }
    return kib;
  }

  private static long rssKiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      return 0; // exited between listing and reading
    }
    return 0;
  }

  private static io.fabric8.kubernetes.api.model.Node clearGfdLabels(
      io.fabric8.kubernetes.api.model.Node n) {
    n.getMetadata().getLabels().remove("nvidia.com/gpu.product");
    return n;
  }

  private static void stop(List<Process> processes) throws InterruptedException {
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
    }
    for (Process p : processes) {
      if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static double[] loadAverage() throws IOException {
    String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
    return new double[] {
      Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])
    };
  }
}
