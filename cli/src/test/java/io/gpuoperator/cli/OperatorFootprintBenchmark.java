package io.gpuoperator.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark, not a test (run by scripts/bench-operator-footprint.sh): the operator as its own
 * process ({@code java <flags> -jar gpu-operator.jar operator}) against a real API server holding N
 * GPU nodes (Node objects with NFD labels) and the documentation-sample ClusterPolicy, as the
 * operator meets a cluster it is installed into. It reads the process's {@code /proc} every 100 ms
 * and prints: CPU seconds (utime + stime) and wall time until the first node carries its labels
 * (start-up to the first reconcile) and until all do, CPU seconds over an idle minute after that,
 * peak RSS (VmHWM) and the most threads seen.
 *
 * <p>Arguments: nodes (1000), idle seconds (60), then the JVM flags; none means the image's
 * launcher's flags (deploy/image/gpu-operator, read by {@link NodeFootprintBenchmark#jvmFlags}).
 */
public final class OperatorFootprintBenchmark {
  static final String NS = "gpu-operator";
  static final Path JAR = Path.of("cli/target/gpu-operator.jar");
  static final Path LAUNCHER = Path.of("deploy/image/gpu-operator");
  static final Map<String, String> NFD_GPU =
      Map.of(
          "feature.node.kubernetes.io/pci-10de.present", "true",
          "feature.node.kubernetes.io/system-os_release.ID", "ubuntu",
          "feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04",
          "kubernetes.io/os", "linux");
  static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

  /** A file for a thread dump at each new peak of threads (env FOOTPRINT_PEAK_DUMP), or null. */
  static final String PEAK_DUMP = System.getenv("FOOTPRINT_PEAK_DUMP");

  private OperatorFootprintBenchmark() {}

  public static void main(String[] args) throws Exception {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int idleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    List<String> jvm =
        args.length > 2
            ? List.of(args).subList(2, args.length)
            : NodeFootprintBenchmark.jvmFlags(LAUNCHER);
    try (ControlPlane cp =
        ControlPlane.builder().controllers(ControlPlane.GC_CONTROLLERS).start()) {
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      admin
          .namespaces()
          .resource(
              new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                  .withNewMetadata()
                  .withName(NS)
                  .endMetadata()
                  .build())
          .create();
      createNodes(admin, nodes);
      admin.resource(samplePolicy()).create();

      Set<String> labelled = ConcurrentHashMap.newKeySet();
      var watch =
          admin
              .nodes()
              .watch(
                  new Watcher<Node>() {
                    @Override
                    public void eventReceived(Action action, Node node) {
                      var labels = node.getMetadata().getLabels();
                      if (labels != null
                          && "true".equals(labels.get("nvidia.com/gpu.present"))
                          && "true".equals(labels.get("nvidia.com/gpu.deploy.device-plugin"))) {
                        labelled.add(node.getMetadata().getName());
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  });
      Thread.sleep(2_000); // the watch's initial events: nothing is labelled yet
      if (!labelled.isEmpty()) {
        throw new IllegalStateException(labelled.size() + " nodes labelled before the operator");
      }

      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvm);
      cmd.addAll(
          List.of(
              "-jar",
              JAR.toString(),
              "operator",
              "--kubeconfig=" + cp.kubeconfig(),
              "--metrics-bind-address=127.0.0.1:0",
              "--health-probe-bind-address=127.0.0.1:0"));
      Path log = Path.of("cli/target/operator-footprint.log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
      pb.environment().put("OPERATOR_NAMESPACE", NS);
      double[] loadBefore = loadAverage();
      long t0 = System.nanoTime();
      Process p = pb.start();
      long pid = p.pid();
      int maxThreads = 0;
      Map<String, Integer> atPeak = Map.of();
      double firstCpu = -1;
      double firstWall = -1;
      double allCpu = -1;
      double allWall = -1;
      long deadline = t0 + TimeUnit.MINUTES.toNanos(10);
      try {
        while (allCpu < 0 && System.nanoTime() < deadline) {
          if (!p.isAlive()) {
            throw new IllegalStateException("the operator exited; see " + log);
          }
          int threadsNow = (int) status(pid, "Threads:");
          if (threadsNow > maxThreads) {
            maxThreads = threadsNow;
            atPeak = threadNames(pid);
            if (PEAK_DUMP != null) {
              // Profiling runs only: attaching costs the operator CPU.
              Files.writeString(Path.of(PEAK_DUMP), jcmd(pid, "Thread.print"));
            }
          }
          if (firstCpu < 0 && !labelled.isEmpty()) {
            firstCpu = cpuSeconds(pid);
            firstWall = (System.nanoTime() - t0) / 1e9;
          }
          if (labelled.size() >= nodes) {
            allCpu = cpuSeconds(pid);
            allWall = (System.nanoTime() - t0) / 1e9;
          }
          Thread.sleep(100);
        }
        if (allCpu < 0) {
          throw new IllegalStateException(labelled.size() + "/" + nodes + " labelled in 10 min");
        }
        Thread.sleep(5_000); // late work (status, events) after the last label
        double idleFrom = cpuSeconds(pid);
        Map<String, Long> idleThreadsFrom = threadTicks(pid);
        long idleEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(idleSeconds);
        while (System.nanoTime() < idleEnd) {
          maxThreads = Math.max(maxThreads, (int) status(pid, "Threads:"));
          Thread.sleep(1_000);
        }
        double idleCpu = cpuSeconds(pid) - idleFrom;
        Map<String, Long> idleThreadsTo = threadTicks(pid);
        double total = cpuSeconds(pid);
        long hwm = status(pid, "VmHWM:");
        long rss = status(pid, "VmRSS:");
        int threads = (int) status(pid, "Threads:");
        double[] load = loadAverage();
        System.out.printf(
            Locale.ROOT,
            "BENCH operator-footprint: %d nodes; first node labelled %.1f s / %.2f s CPU after"
                + " start; all labelled %.1f s / %.2f s CPU; idle %d s: %.2f s CPU; total %.2f s"
                + " CPU; peak RSS %.1f MiB (now %.1f); threads max %d (now %d); load average"
                + " %.2f before, %.2f %.2f %.2f after; JVM flags %s%n",
            nodes,
            firstWall,
            firstCpu,
            allWall,
            allCpu,
            idleSeconds,
            idleCpu,
            total,
            hwm / 1024.0,
            rss / 1024.0,
            maxThreads,
            threads,
            loadBefore[0],
            load[0],
            load[1],
            load[2],
            String.join(" ", jvm));
        System.out.println("BENCH threads at the peak, by name (digits folded): " + atPeak);
        System.out.println(
            "BENCH threads after the idle minute, by name (digits folded): " + threadNames(pid));
        System.out.println(
            "BENCH idle CPU by thread name (digits folded, seconds): "
                + idleCpuByName(idleThreadsFrom, idleThreadsTo));
        if (jvm.stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking="))) {
          // The profile behind the RSS: what the JVM committed, by area.
          System.out.println(jcmd(pid, "VM.native_memory", "summary"));
        }
      } finally {
        watch.close();
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  static void createNodes(KubernetesClient admin, int nodes) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    for (int i = 0; i < nodes; i++) {
      String name = String.format(Locale.ROOT, "footprint-gpu-%04d", i);
      pool.submit(
          () ->
              admin
                  .nodes()
                  .resource(
                      new NodeBuilder()
                          .withNewMetadata()
                          .withName(name)
                          .withLabels(NFD_GPU)
                          .endMetadata()
                          .build())
                  .create());
    }
    pool.shutdown();
    if (!pool.awaitTermination(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException("creating " + nodes + " nodes took over 5 minutes");
    }
  }

  static ClusterPolicy samplePolicy() throws IOException {
    try (InputStream in =
        ClusterPolicy.class.getResourceAsStream("/io/gpuoperator/api/samples/clusterpolicy.yaml")) {
      ClusterPolicy p = Serialization.unmarshal(in, ClusterPolicy.class);
      p.getMetadata().setName("cluster-policy");
      return p;
    }
  }

  static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name.
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) TICKS_PER_SECOND;
  }

  /** A numeric field of /proc/PID/status (kB for memory). */
  static long status(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  /**
   * The process's threads by name (/proc/PID/task/N/comm, the JVM's names cut to 15 characters)
   * with digits folded to N, so that the pools and their owners show: who holds the threads.
   */
  static Map<String, Integer> threadNames(long pid) {
    Map<String, Integer> names = new java.util.TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "N");
          names.merge(name, 1, Integer::sum);
        } catch (IOException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException e) {
      return Map.of("(unreadable: " + e.getMessage() + ")", 0);
    }
    return names;
  }

  /**
   * Each live thread's CPU ticks (utime + stime of /proc/PID/task/N/stat), keyed by thread id and
   * its name with digits folded ({@code 123 main}): what the idle CPU is spent on.
   */
  static Map<String, Long> threadTicks(long pid) {
    Map<String, Long> ticks = new java.util.HashMap<>();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          ticks.put(
              task.getFileName() + " " + name.replaceAll("[0-9]+", "N"),
              Long.parseLong(f[11]) + Long.parseLong(f[12]));
        } catch (IOException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return ticks;
  }

  /**
   * The CPU seconds each thread name spent between two {@link #threadTicks} readings, most first (a
   * thread that started in between counts from zero; one that ended is not seen).
   */
  static Map<String, Double> idleCpuByName(Map<String, Long> from, Map<String, Long> to) {
    Map<String, Long> byName = new java.util.HashMap<>();
    to.forEach(
        (key, ticks) ->
            byName.merge(
                key.substring(key.indexOf(' ') + 1),
                ticks - from.getOrDefault(key, 0L),
                Long::sum));
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    byName.entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .forEach(e -> out.put(e.getKey(), e.getValue() / (double) TICKS_PER_SECOND));
    return out;
  }

  /** jcmd's answer for the process. */
  static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(Long.toString(pid));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  static double[] loadAverage() throws IOException {
    String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return new double[] {
      Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])
    };
  }
}
