package io.gpuoperator.cli.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Benchmark, not a test (run by scripts/bench-peer.sh): this project's operator and NVIDIA's
 * original side by side, each as its own OS process against a fresh control plane of the same
 * build, with the same ClusterPolicy (the original chart's defaults) and the same NFD-labelled Node
 * objects. Per operator it measures the time until every GPU node is labelled (policy first, then
 * the nodes created at once; nodes first, then the policy), its writes (API server audit log, by
 * user agent; failures by code), its writes and CPU seconds while idle, its peak RSS, CPU seconds
 * and peak threads (/proc), and its writes per minute when the DaemonSets never become ready
 * (kubelet-less NotReady nodes whose operand pods stay Pending). Prints one markdown table with the
 * ratios.
 *
 * <p>Ours runs as the product runs: the shaded jar with the image entrypoint's JVM flags
 * (deploy/image/gpu-operator) and the chart's JAVA_TOOL_OPTIONS, its container limits given to the
 * JVM as -XX:MaxRAM and -XX:ActiveProcessorCount (what the JVM reads from the cgroup in a pod), and
 * the chart's arguments. Both are read from the files, so the benchmark follows them.
 */
public final class PeerBenchmark {
  /** Every operator's user agent starts so (ours: gpu-operator/VERSION; client-go: argv[0]/...). */
  private static final String USER_AGENT = "gpu-operator/";

  private static final ResourceDefinitionContext CLUSTER_POLICIES =
      ResourceDefinitionContext.fromResourceType(ClusterPolicy.class);

  /** A GPU node as NFD labels it; the original also needs the kernel version (its driver state). */
  private static final Map<String, String> NFD_GPU =
      Map.of(
          "feature.node.kubernetes.io/pci-10de.present", "true",
          "feature.node.kubernetes.io/system-os_release.ID", "ubuntu",
          "feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04",
          "feature.node.kubernetes.io/kernel-version.full", "5.15.0-91-generic");

  private static final Duration LABEL_TIMEOUT = Duration.ofMinutes(10);
  private static final int CREATORS = 32;

  private final int nodes;
  private final int notReadyNodes;
  private final Duration idle;
  private final Path work;
  private final Path repo;

  private PeerBenchmark(int nodes, int notReadyNodes, Duration idle, Path work, Path repo) {
    this.nodes = nodes;
    this.notReadyNodes = notReadyNodes;
    this.idle = idle;
    this.work = work;
    this.repo = repo;
  }

  /** Arguments: nodes, NotReady nodes, idle window in seconds, work directory, repository root. */
  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      throw new IllegalArgumentException(
          "usage: PeerBenchmark NODES NOT_READY_NODES IDLE_SECONDS WORK_DIR REPO_ROOT");
    }
    var bench =
        new PeerBenchmark(
            positive("NODES", args[0]),
            positive("NOT_READY_NODES", args[1]),
            Duration.ofSeconds(positive("IDLE_SECONDS", args[2])),
            Path.of(args[3]),
            Path.of(args[4]));
    String why = OriginalOperator.unavailable();
    if (why != null) {
      throw new IllegalStateException(why);
    }
    bench.run();
    // Shutdown hooks (the control planes', the operators') have run; the clients' threads must
    // not keep the JVM alive.
    System.exit(0);
  }

  private void run() throws Exception {
    Files.createDirectories(work);
    List<String> ourCommand = ourCommand();
    step("our operator: " + String.join(" ", ourCommand));
    step("  with JAVA_TOOL_OPTIONS=" + chartJavaToolOptions());
    Map<Who, Result> results = new LinkedHashMap<>();
    for (Who who : Who.values()) {
      results.put(who, new Result());
    }
    for (Who who : Who.values()) {
      policyFirst(who, results.get(who));
    }
    for (Who who : Who.values()) {
      nodesFirst(who, results.get(who));
    }
    for (Who who : Who.values()) {
      neverReady(who, results.get(who));
    }
    System.out.println();
    System.out.println(table(results.get(Who.OURS), results.get(Who.ORIGINAL)));
    System.out.println(
        "user agents: ours "
            + results.get(Who.OURS).userAgent
            + "; original "
            + results.get(Who.ORIGINAL).userAgent);
  }

  /** Which operator. */
  enum Who {
    OURS("ours"),
    ORIGINAL("original");

    final String label;

    Who(String label) {
      this.label = label;
    }
  }

  /** What one operator scored; NaN where a phase did not finish. */
  static final class Result {
    double policyFirstSeconds = Double.NaN;
    double nodesFirstSeconds = Double.NaN;
    Writes policyFirstWrites;
    Writes nodesFirstWrites;
    long idleWrites = -1;
    double idleCpuSeconds = Double.NaN;
    Proc policyFirstProc;
    Proc nodesFirstProc;
    double neverReadyWritesPerMinute = Double.NaN;
    String neverReadyWhat = "";
    String userAgent = "";
  }

  /** Writes in a phase: all, to nodes, failed (any 4xx/5xx), of those 404 and 409. */
  record Writes(long all, long nodes, long failed, long notFound, long conflict, String byKind) {
    static Writes of(List<AuditLog.Write> ws) {
      return new Writes(
          ws.size(),
          ws.stream().filter(w -> w.resource().equals("nodes")).count(),
          ws.stream().filter(w -> w.code() >= 400).count(),
          ws.stream().filter(w -> w.code() == 404).count(),
          ws.stream().filter(w -> w.code() == 409).count(),
          ws.stream()
              .collect(
                  Collectors.groupingBy(
                      w ->
                          w.verb()
                              + " "
                              + w.resource()
                              + (w.sub() == null ? "" : "/" + w.sub())
                              + (w.code() >= 400 ? " " + w.code() : ""),
                      java.util.TreeMap::new,
                      Collectors.counting()))
              .toString());
    }
  }

  /** A process's figures from /proc: peak RSS (VmHWM), CPU (utime+stime), peak threads. */
  record Proc(double peakRssMiB, double cpuSeconds, int peakThreads) {}

  // ---------------------------------------------------------------------------------------------
  // The three phases.

  /** (a) The policy first (the operator's first pass done), then N nodes created at once. */
  private void policyFirst(Who who, Result r) throws Exception {
    step(who.label + ": (a) policy first, then " + nodes + " nodes at once");
    try (ControlPlane cp = controlPlane(ControlPlane.GC_CONTROLLERS)) {
      KubernetesClient admin = cp.client();
      AuditLog audit = new AuditLog(cp.auditLog());
      String ns = prepare(admin, who);
      try (Operator op = Operator.start(who, cp, ns, work.resolve(who.label + "-a"), this)) {
        op.awaitLeader(admin);
        createPolicy(admin);
        awaitQuiet(audit, 0, op, "its first pass on the policy");
        long mark = audit.mark();
        try (Labelled labelled = Labelled.watch(admin, nodes)) {
          long t0 = System.nanoTime();
          createNodes(admin, nodes, false);
          step(who.label + ": nodes created in " + secs(System.nanoTime() - t0) + " s");
          r.policyFirstSeconds = labelled.await(t0, op, who);
        }
        awaitQuiet(audit, mark, op, "the labelling");
        List<AuditLog.Write> ws = audit.writesSince(mark, USER_AGENT);
        r.policyFirstWrites = Writes.of(ws);
        step(who.label + ": writes " + r.policyFirstWrites);
        long idleMark = audit.mark();
        double cpuBefore = op.proc().cpuSeconds();
        step(who.label + ": idle for " + idle.toSeconds() + " s");
        Thread.sleep(idle.toMillis());
        r.idleWrites = audit.writesSince(idleMark, USER_AGENT).size();
        r.idleCpuSeconds = op.proc().cpuSeconds() - cpuBefore;
        r.userAgent = userAgent(cp.auditLog());
        r.policyFirstProc = op.proc();
        step(
            who.label
                + ": "
                + r.policyFirstProc
                + ", idle writes "
                + r.idleWrites
                + ", idle CPU "
                + r.idleCpuSeconds
                + " s");
      }
    }
  }

  /** (b) N nodes present and the operator up, then the policy. */
  private void nodesFirst(Who who, Result r) throws Exception {
    step(who.label + ": (b) " + nodes + " nodes present, then the policy");
    try (ControlPlane cp = controlPlane(ControlPlane.GC_CONTROLLERS)) {
      KubernetesClient admin = cp.client();
      AuditLog audit = new AuditLog(cp.auditLog());
      String ns = prepare(admin, who);
      createNodes(admin, nodes, false);
      try (Operator op = Operator.start(who, cp, ns, work.resolve(who.label + "-b"), this)) {
        op.awaitLeader(admin);
        awaitQuiet(audit, 0, op, "its start with no policy");
        long mark = audit.mark();
        try (Labelled labelled = Labelled.watch(admin, nodes)) {
          long t0 = System.nanoTime();
          createPolicy(admin);
          r.nodesFirstSeconds = labelled.await(t0, op, who);
        }
        awaitQuiet(audit, mark, op, "the labelling");
        r.nodesFirstWrites = Writes.of(audit.writesSince(mark, USER_AGENT));
        step(who.label + ": writes " + r.nodesFirstWrites);
        r.nodesFirstProc = op.proc();
        step(who.label + ": " + r.nodesFirstProc);
      }
    }
  }

  /**
   * (c) DaemonSets that never become ready: NotReady nodes with no kubelet, the DaemonSet
   * controller running and no scheduler, so every operand pod stays Pending. Writes per minute over
   * the idle window, after the operator has had the same window to settle.
   */
  private void neverReady(Who who, Result r) throws Exception {
    step(who.label + ": (c) " + notReadyNodes + " NotReady nodes, DaemonSets never ready");
    try (ControlPlane cp = controlPlane(ControlPlane.GC_CONTROLLERS + ",daemonset")) {
      KubernetesClient admin = cp.client();
      AuditLog audit = new AuditLog(cp.auditLog());
      String ns = prepare(admin, who);
      createNodes(admin, notReadyNodes, true);
      try (Operator op = Operator.start(who, cp, ns, work.resolve(who.label + "-c"), this)) {
        op.awaitLeader(admin);
        try (Labelled labelled = Labelled.watch(admin, notReadyNodes)) {
          long t0 = System.nanoTime();
          createPolicy(admin);
          labelled.await(t0, op, who);
        }
        step(who.label + ": settling for " + idle.toSeconds() + " s");
        Thread.sleep(idle.toMillis());
        op.checkAlive();
        long mark = audit.mark();
        long t0 = System.nanoTime();
        Thread.sleep(idle.toMillis());
        List<AuditLog.Write> ws = audit.writesSince(mark, USER_AGENT);
        r.neverReadyWritesPerMinute = ws.size() * 60e9 / (System.nanoTime() - t0);
        r.neverReadyWhat = Writes.of(ws).byKind();
        List<DaemonSet> ds = admin.apps().daemonSets().inNamespace(ns).list().getItems();
        String status =
            ds.stream()
                .map(
                    d ->
                        d.getMetadata().getName()
                            + " "
                            + (d.getStatus() == null
                                ? "-"
                                : d.getStatus().getNumberReady()
                                    + "/"
                                    + d.getStatus().getDesiredNumberScheduled()))
                .collect(Collectors.joining(", "));
        step(
            who.label
                + ": "
                + String.format(Locale.ROOT, "%.0f", r.neverReadyWritesPerMinute)
                + " writes/min "
                + r.neverReadyWhat
                + "; DaemonSets ready/desired: "
                + status);
        op.checkAlive();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The cluster.

  private ControlPlane controlPlane(String controllers) throws Exception {
    long t0 = System.nanoTime();
    ControlPlane cp = ControlPlane.builder().controllers(controllers).start();
    step("control plane up in " + secs(System.nanoTime() - t0) + " s (" + cp.directory() + ")");
    return cp;
  }

  /**
   * The operator's namespace and CRDs (ours from the api module, the original's from its build).
   */
  private String prepare(KubernetesClient admin, Who who) throws Exception {
    String ns = "gpu-operator";
    ControlPlaneExtension.createNamespace(
        admin, ns, Map.of("pod-security.kubernetes.io/enforce", "privileged"));
    if (who == Who.OURS) {
      Crds.apply(admin);
    } else {
      MigrationIT.applyOriginalCrds(admin);
    }
    return ns;
  }

  private static void createPolicy(KubernetesClient admin) {
    admin
        .genericKubernetesResources(CLUSTER_POLICIES)
        .resource(Serialization.unmarshal(MigrationIT.POLICY_YAML, GenericKubernetesResource.class))
        .create();
  }

  /**
   * Creates bench-gpu-0000.. from 32 threads, shaped as a kubelet registers them (annotations, NFD
   * labels); notReady ones also get a Ready=False condition, as a node whose kubelet stopped, and
   * lose the admission's not-ready taint (below).
   */
  private static void createNodes(KubernetesClient admin, int count, boolean notReady)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(CREATORS);
    AtomicInteger failed = new AtomicInteger();
    List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = String.format(Locale.ROOT, "bench-gpu-%04d", i);
      pool.submit(
          () -> {
            try {
              Node created = admin.nodes().resource(node(name)).create();
              if (notReady) {
                // The API server's TaintNodesByCondition admission taints a new node not-ready
                // (NoSchedule) and only the node lifecycle controller, not run here, lifts it.
                // With it the DaemonSet controller wants no pod there and every DaemonSet is
                // "ready" at 0/0; without it each node gets its operand pods, which no kubelet
                // runs, as on nodes whose kubelet died after their pods were placed.
                created.getSpec().setTaints(List.of());
                created = admin.nodes().resource(created).update();
                created
                    .getStatus()
                    .setConditions(
                        List.of(
                            new NodeConditionBuilder()
                                .withType("Ready")
                                .withStatus("False")
                                .withReason("KubeletNotReady")
                                .withMessage("no kubelet (benchmark)")
                                .build()));
                admin.nodes().resource(created).updateStatus();
              }
            } catch (RuntimeException e) {
              failed.incrementAndGet();
              errors.add(name + ": " + e.getMessage());
            }
          });
    }
    pool.shutdown();
    if (!pool.awaitTermination(5, TimeUnit.MINUTES) || failed.get() > 0) {
      throw new IllegalStateException(
          "creating " + count + " nodes: " + failed.get() + " failed, e.g. " + errors);
    }
  }

  private static Node node(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("kubernetes.io/hostname", name)
        .addToLabels("kubernetes.io/os", "linux")
        .addToLabels(NFD_GPU)
        // The original writes into the annotations map unchecked (it panics on a nil one).
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
        .endMetadata()
        .withNewStatus()
        .endStatus()
        .build();
  }

  /** Waits until the operator's writes since mark stop changing for 5 s (at most 3 min). */
  private static void awaitQuiet(AuditLog audit, long mark, Operator op, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    int last = -1;
    long since = System.nanoTime();
    while (System.nanoTime() < deadline) {
      op.checkAlive();
      int n = audit.writesSince(mark, USER_AGENT).size();
      if (n != last) {
        last = n;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > Duration.ofSeconds(5).toNanos()) {
        return;
      }
      Thread.sleep(1000);
    }
    step("note: still writing 3 min after " + what + " (" + last + " writes); going on");
  }

  /** The distinct user agents starting with gpu-operator/ in the audit log. */
  private static String userAgent(Path auditLog) throws IOException {
    ObjectMapper json = new ObjectMapper();
    Set<String> agents = new java.util.TreeSet<>();
    for (String line : Files.readAllLines(auditLog)) {
      try {
        String ua = json.readTree(line).path("userAgent").asText();
        if (ua.startsWith(USER_AGENT)) {
          agents.add(ua);
        }
      } catch (IOException e) {
        // a line being written
      }
    }
    return String.join(" | ", agents);
  }

  /** A watch recording when each bench node first carries the GPU labels both operators set. */
  static final class Labelled implements AutoCloseable {
    private final Map<String, Long> at = new ConcurrentHashMap<>();
    private final CountDownLatch done;
    private final Watch watch;
    private final int count;

    private Labelled(KubernetesClient admin, int count) {
      this.count = count;
      this.done = new CountDownLatch(count);
      this.watch =
          admin
              .nodes()
              .watch(
                  new Watcher<Node>() {
                    @Override
                    public void eventReceived(Action action, Node n) {
                      if (n.getMetadata().getName().startsWith("bench-gpu-")
                          && labelled(n)
                          && at.putIfAbsent(n.getMetadata().getName(), System.nanoTime()) == null) {
                        done.countDown();
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {
                      if (cause != null) {
                        step("node watch closed: " + cause.getMessage());
                      }
                    }
                  });
    }

    static Labelled watch(KubernetesClient admin, int count) {
      return new Labelled(admin, count);
    }

    static boolean labelled(Node n) {
      var labels = n.getMetadata().getLabels();
      return labels != null
          && "true".equals(labels.get("nvidia.com/gpu.present"))
          && "true".equals(labels.get("nvidia.com/gpu.deploy.device-plugin"));
    }

    /** Seconds from t0 until all are labelled; NaN (and a line saying so) on timeout. */
    double await(long t0, Operator op, Who who) throws InterruptedException {
      long deadline = System.nanoTime() + LABEL_TIMEOUT.toNanos();
      long lastReport = System.nanoTime();
      while (!done.await(1, TimeUnit.SECONDS)) {
        op.checkAlive();
        if (System.nanoTime() > deadline) {
          step(
              who.label
                  + ": NOT all labelled within "
                  + LABEL_TIMEOUT.toMinutes()
                  + " min ("
                  + at.size()
                  + "/"
                  + count
                  + ")");
          return Double.NaN;
        }
        if (System.nanoTime() - lastReport > Duration.ofSeconds(10).toNanos()) {
          lastReport = System.nanoTime();
          step(who.label + ": " + at.size() + "/" + count + " labelled");
        }
      }
      long last = at.values().stream().mapToLong(Long::longValue).max().orElse(System.nanoTime());
      double s = (last - t0) / 1e9;
      step(
          who.label
              + ": all "
              + count
              + " labelled "
              + String.format(Locale.ROOT, "%.1f", s)
              + " s");
      return s;
    }

    @Override
    public void close() {
      watch.close();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The operators as processes.

  /** One operator process, its figures sampled from /proc while it runs. */
  static final class Operator implements AutoCloseable {
    private final Who who;
    private final Process process;
    private final OriginalOperator original;
    private final Path log;
    private final Thread sampler;
    private volatile int peakThreads;
    private volatile Proc last = new Proc(Double.NaN, Double.NaN, 0);

    private Operator(Who who, Process process, OriginalOperator original, Path log) {
      this.who = who;
      this.process = process;
      this.original = original;
      this.log = log;
      this.sampler = new Thread(this::sample, "proc-sampler-" + who.label);
      sampler.setDaemon(true);
      sampler.start();
    }

    static Operator start(Who who, ControlPlane cp, String ns, Path dir, PeerBenchmark bench)
        throws IOException {
      Files.createDirectories(dir);
      Path log = dir.resolve("operator.log");
      if (who == Who.ORIGINAL) {
        OriginalOperator o = OriginalOperator.start(dir, cp.kubeconfigFor("admin"), ns, log, true);
        return new Operator(who, null, o, log);
      }
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, cp.kubeconfigFor("admin"));
      List<String> cmd = new ArrayList<>(bench.ourCommand());
      cmd.add("--kubeconfig=" + kubeconfig);
      // Port 0: the operator binds whatever port is free when it starts. A port picked here and
      // released before the operator binds it can be taken meanwhile (case (c) once failed with
      // "Address already in use": the control plane's own connections draw from the same range).
      cmd.add("--metrics-bind-address=127.0.0.1:0");
      cmd.add("--health-probe-bind-address=127.0.0.1:0");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().put("OPERATOR_NAMESPACE", ns);
      pb.environment().put("JAVA_TOOL_OPTIONS", bench.chartJavaToolOptions());
      // A host name the chart's pod would have; ours adds its pid when HOSTNAME is unset.
      pb.environment().put("HOSTNAME", "gpu-operator-bench");
      return new Operator(who, pb.start(), null, log);
    }

    long pid() {
      return original != null ? original.pid() : process.pid();
    }

    boolean alive() {
      return original != null ? original.alive() : process.isAlive();
    }

    void checkAlive() {
      if (!alive()) {
        throw new IllegalStateException(
            who.label + " operator exited; the end of its log " + log + ":\n" + tail(40));
      }
    }

    /** Waits (at most 2 min) until a Lease in the namespace has a holder: it is reconciling. */
    void awaitLeader(KubernetesClient admin) throws InterruptedException {
      long t0 = System.nanoTime();
      long deadline = t0 + Duration.ofMinutes(2).toNanos();
      while (admin.leases().inAnyNamespace().list().getItems().stream()
          .noneMatch(
              l ->
                  l.getMetadata().getNamespace().equals("gpu-operator")
                      && l.getSpec().getHolderIdentity() != null)) {
        checkAlive();
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              who.label
                  + " operator holds no Lease after 2 min; its log "
                  + log
                  + ":\n"
                  + tail(40));
        }
        Thread.sleep(200);
      }
      step(
          who.label
              + ": leader "
              + secs(System.nanoTime() - t0)
              + " s after start (pid "
              + pid()
              + ", "
              + comm()
              + ")");
    }

    private void sample() {
      while (alive()) {
        try {
          last = read();
          peakThreads = Math.max(peakThreads, last.peakThreads());
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          // the process ended between alive() and the read
        }
      }
    }

    /** Its figures now (peak threads over its life so far). */
    Proc proc() {
      Proc now = read();
      peakThreads = Math.max(peakThreads, now.peakThreads());
      return new Proc(now.peakRssMiB(), now.cpuSeconds(), peakThreads);
    }

    private Proc read() {
      long pid = pid();
      try {
        String status = Files.readString(Path.of("/proc/" + pid + "/status"));
        long hwmKb = field(status, "VmHWM");
        int threads = (int) field(status, "Threads");
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // Fields after the command name (which may hold spaces) are space-separated; utime and
        // stime are fields 14 and 15, in clock ticks (USER_HZ, 100 on Linux).
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return new Proc(hwmKb / 1024.0, ticks / 100.0, threads);
      } catch (IOException e) {
        throw new UncheckedIOException("reading /proc/" + pid + " of " + who.label, e);
      }
    }

    private static long field(String status, String name) {
      Matcher m = Pattern.compile("(?m)^" + name + ":\\s+(\\d+)").matcher(status);
      if (!m.find()) {
        throw new IllegalStateException("no " + name + " in /proc/PID/status");
      }
      return Long.parseLong(m.group(1));
    }

    /** The process's command name, to show that the pid measured is the operator's own. */
    private String comm() {
      try {
        return Files.readString(Path.of("/proc/" + pid() + "/comm")).strip();
      } catch (IOException e) {
        return "?";
      }
    }

    String tail(int lines) {
      return OriginalOperator.tail(log, lines);
    }

    /** SIGTERM, then SIGKILL after 15 s, as Kubernetes stops a pod. */
    @Override
    public void close() throws InterruptedException {
      if (original != null) {
        original.close();
      } else {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      }
      sampler.interrupt();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Our operator's command line, as the chart and the image run it.

  private List<String> ourCommand() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(entrypointFlags());
    JsonNode limits = chartOperatorValues().path("resources").path("limits");
    // In the pod the JVM sizes its heap from the cgroup's memory limit and counts the CPU quota
    // as processors; outside one, these two flags tell it the same.
    cmd.add("-XX:MaxRAM=" + bytes(limits.path("memory").asText()));
    cmd.add("-XX:ActiveProcessorCount=" + processors(limits.path("cpu").asText()));
    cmd.add("-jar");
    cmd.add(repo.resolve("cli/target/gpu-operator.jar").toString());
    // The chart's arguments (its default logging adds none).
    cmd.add("operator");
    cmd.add("--leader-elect");
    return cmd;
  }

  /** The JVM flags of the image's entrypoint (deploy/image/gpu-operator), in order. */
  private List<String> entrypointFlags() throws IOException {
    Path file = repo.resolve("deploy/image/gpu-operator");
    List<String> flags = new ArrayList<>();
    boolean inExec = false;
    for (String line : Files.readAllLines(file)) {
      String t = line.strip();
      if (t.startsWith("exec ")) {
        inExec = true;
        continue;
      }
      if (!inExec) {
        continue;
      }
      String flag = t.endsWith("\\") ? t.substring(0, t.length() - 1).strip() : t;
      if (flag.startsWith("-jar")) {
        break;
      }
      if (flag.startsWith("-")) {
        flags.add(flag);
      }
    }
    if (flags.isEmpty()) {
      throw new IllegalStateException("no JVM flags found after 'exec' in " + file);
    }
    return flags;
  }

  private String chartJavaToolOptions() throws IOException {
    String opts = chartOperatorValues().path("javaOpts").asText("");
    if (opts.isBlank()) {
      throw new IllegalStateException("no operator.javaOpts in the chart's values.yaml");
    }
    return opts;
  }

  private JsonNode chartOperatorValues() throws IOException {
    Path values = repo.resolve("deploy/helm/gpu-operator/values.yaml");
    return new ObjectMapper(new YAMLFactory()).readTree(values.toFile()).path("operator");
  }

  /** A Kubernetes memory quantity (512Mi, 1Gi, 500M) in bytes. */
  static long bytes(String q) {
    Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|K|M|G)?").matcher(q.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("operator.resources.limits.memory: not a quantity: " + q);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2);
    return switch (unit) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      case "Gi" -> n << 30;
      case "K" -> n * 1000;
      case "M" -> n * 1000_000;
      case "G" -> n * 1000_000_000;
      default -> n;
    };
  }

  /** A CPU quantity (500m, 2) as the JVM counts a quota: rounded up, at least 1. */
  static int processors(String q) {
    String s = q.strip();
    double cpus =
        s.endsWith("m")
            ? Double.parseDouble(s.substring(0, s.length() - 1)) / 1000
            : Double.parseDouble(s);
    return Math.max(1, (int) Math.ceil(cpus));
  }

  // ---------------------------------------------------------------------------------------------
  // The report.

  String table(Result ours, Result orig) {
    StringBuilder t = new StringBuilder();
    t.append("| ")
        .append(nodes)
        .append(" GPU nodes (c: ")
        .append(notReadyNodes)
        .append(" NotReady) | ours | original | ours/original |\n|---|---:|---:|---:|\n");
    row(
        t,
        "(a) policy first, then the nodes at once: all labelled (s)",
        ours.policyFirstSeconds,
        orig.policyFirstSeconds,
        1);
    row(
        t,
        "(b) nodes first, then the policy: all labelled (s)",
        ours.nodesFirstSeconds,
        orig.nodesFirstSeconds,
        1);
    writeRows(t, "(a)", ours.policyFirstWrites, orig.policyFirstWrites);
    writeRows(t, "(b)", ours.nodesFirstWrites, orig.nodesFirstWrites);
    row(
        t,
        "idle writes in " + idle.toSeconds() + " s after (a)",
        ours.idleWrites,
        orig.idleWrites,
        0);
    row(
        t,
        "idle CPU in " + idle.toSeconds() + " s after (a) (s, utime+stime)",
        ours.idleCpuSeconds,
        orig.idleCpuSeconds,
        2);
    procRows(t, "(a)", ours.policyFirstProc, orig.policyFirstProc);
    procRows(t, "(b)", ours.nodesFirstProc, orig.nodesFirstProc);
    row(
        t,
        "(c) DaemonSets never ready: writes per minute",
        ours.neverReadyWritesPerMinute,
        orig.neverReadyWritesPerMinute,
        0);
    return t.toString();
  }

  private void writeRows(StringBuilder t, String phase, Writes ours, Writes orig) {
    if (ours == null || orig == null) {
      return;
    }
    row(
        t,
        phase + " node writes per node",
        ours.nodes() / (double) nodes,
        orig.nodes() / (double) nodes,
        2);
    row(
        t,
        phase + " writes per node, all kinds",
        ours.all() / (double) nodes,
        orig.all() / (double) nodes,
        2);
    cells(
        t,
        phase + " failed writes: all (404, 409)",
        failed(ours),
        failed(orig),
        ratio(ours.failed(), orig.failed()));
  }

  private static String failed(Writes w) {
    return w.failed() + " (" + w.notFound() + ", " + w.conflict() + ")";
  }

  private static void procRows(StringBuilder t, String phase, Proc ours, Proc orig) {
    if (ours == null || orig == null) {
      return;
    }
    row(t, phase + " peak RSS (MiB, VmHWM)", ours.peakRssMiB(), orig.peakRssMiB(), 0);
    row(t, phase + " CPU over the run (s, utime+stime)", ours.cpuSeconds(), orig.cpuSeconds(), 1);
    row(t, phase + " peak threads", ours.peakThreads(), orig.peakThreads(), 0);
  }

  private static void row(StringBuilder t, String what, double ours, double orig, int decimals) {
    String f = "%." + decimals + "f";
    cells(
        t,
        what,
        Double.isNaN(ours) || ours < 0 ? "—" : String.format(Locale.ROOT, f, ours),
        Double.isNaN(orig) || orig < 0 ? "—" : String.format(Locale.ROOT, f, orig),
        ratio(ours, orig));
  }

  private static String ratio(double ours, double orig) {
    return Double.isNaN(ours) || Double.isNaN(orig) || ours < 0 || orig <= 0
        ? "—"
        : String.format(Locale.ROOT, "%.2f", ours / orig);
  }

  private static void cells(StringBuilder t, String what, String ours, String orig, String ratio) {
    t.append("| ")
        .append(what)
        .append(" | ")
        .append(ours)
        .append(" | ")
        .append(orig)
        .append(" | ")
        .append(ratio)
        .append(" |\n");
  }

  // ---------------------------------------------------------------------------------------------

  private static int positive(String name, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new IllegalArgumentException(
        name + ": expected a positive whole number, got '" + value + "'");
  }

  static void step(String what) {
    System.out.println("[peer] " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + what);
  }

  private static String secs(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
  }
}
