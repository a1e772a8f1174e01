package io.gpuoperator.sim.controlplane;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane on this machine: etcd and kube-apiserver, optionally
 * kube-controller-manager and kube-scheduler, all on 127.0.0.1 and free ports, in a temp directory
 * that is removed on {@link #close()}. Every process is stopped on close, on JVM shutdown, and by a
 * watchdog if the JVM dies without running its shutdown hooks.
 */
public final class ControlPlane implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);

  /** Node clients per shared connection to the API server. */
  static final int NODES_PER_CONNECTION = 50;

  /** The Kubernetes release the binaries are pinned to (scripts/k8s-versions.env). */
  public static final String K8S_VERSION = K8sVersions.KUBERNETES;

  public static final String BIN_DIR_PROPERTY = "gpu-operator.k8s.bin";
  public static final String BIN_DIR_ENV = "GPU_OPERATOR_K8S_BIN";

  /** The envtest convention (controller-runtime, setup-envtest) for a folder of binaries. */
  public static final String KUBEBUILDER_ASSETS_ENV = "KUBEBUILDER_ASSETS";

  /** Every binary a full control plane needs, all in one folder. */
  public static final List<String> BINARIES =
      List.of("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl");

  /** Controllers the shared test control plane runs: enough for owner-reference GC. */
  public static final String GC_CONTROLLERS =
      "garbagecollector,namespace,serviceaccount,serviceaccount-token,clusterrole-aggregation";

  /** The prefix of every control plane's temp directory (stale ones are removed at start). */
  public static final String DIR_PREFIX = "gpu-operator-cp-";

  private final Builder options;
  private final Path dir;

  /** The node clients' connections (SharedClientResources.SharedConnections says why shared). */
  private final SharedClientResources.SharedConnections nodeConnections =
      new SharedClientResources.SharedConnections(NODES_PER_CONNECTION);

  private final List<ManagedProcess> processes = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::closeQuietly, "control-plane-shutdown");
  private Pki pki;
  private TokenFile tokens;
  private int apiServerPort;
  private Path adminKubeconfig;
  private KubernetesClient client;
  private volatile boolean closed;

  private ControlPlane(Builder options) throws IOException {
    this.options = options;
    this.dir = RunDirs.create(DIR_PREFIX);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Where the binaries are looked for when the builder is not told: the {@code
   * -Dgpu-operator.k8s.bin} property, then {@code GPU_OPERATOR_K8S_BIN}, then {@code
   * KUBEBUILDER_ASSETS}, then the cache {@code scripts/k8s-binaries.sh} fills.
   */
  public static Path defaultBinDir() {
    String prop = System.getProperty(BIN_DIR_PROPERTY);
    if (prop != null && !prop.isBlank()) {
      return Paths.get(prop);
    }
    for (String var : List.of(BIN_DIR_ENV, KUBEBUILDER_ASSETS_ENV)) {
      String env = System.getenv(var);
      if (env != null && !env.isBlank()) {
        return Paths.get(env);
      }
    }
    return K8sVersions.cacheBinDir();
  }

  /** The API server URL, https://127.0.0.1:port. */
  public String apiServerUrl() {
    return "https://127.0.0.1:" + apiServerPort;
  }

  /** A kubeconfig file with admin (system:masters) credentials. */
  public Path kubeconfig() {
    return adminKubeconfig;
  }

  /** The temp directory holding certificates, kubeconfigs, data and logs. */
  public Path directory() {
    return dir;
  }

  /** A shared admin client; do not close it. */
  public KubernetesClient client() {
    return client;
  }

  /** A new admin client that the caller closes. */
  public KubernetesClient newClient() {
    return clientFor("admin");
  }

  /**
   * A new client authenticated as {@code system:node:<name>} (declared in the builder). Its
   * requests share a connection with up to {@value #NODES_PER_CONNECTION} other nodes' (each
   * carries its own node's token).
   */
  public KubernetesClient nodeClient(String nodeName) {
    Config config = configFor("system:node:" + nodeName);
    return SharedClientResources.client(config, nodeConnections);
  }

  /** Kubeconfig YAML for one of the identities in the token file. */
  public String kubeconfigFor(String user) {
    return tokens.kubeconfig(user, apiServerUrl(), pki.caCert);
  }

  /** PIDs of the binaries this control plane runs (not of their watchdog shells). */
  public List<Long> pids() {
    List<Long> out = new ArrayList<>();
    for (ManagedProcess p : processes) {
      out.addAll(p.childPids());
    }
    return out;
  }

  /**
   * Sends a signal to one of the control plane's binaries by PID, e.g. {@code STOP} and later
   * {@code CONT} to {@code kube-apiserver}: an API server that stalls, for fault tests.
   */
  public void signal(String binary, String signal) throws IOException, InterruptedException {
    for (ManagedProcess p : processes) {
      if (p.name().equals(binary)) {
        for (long pid : p.childPids()) {
          Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
          if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " (" + binary + ") failed");
          }
        }
        return;
      }
    }
    throw new IllegalArgumentException("no " + binary + " in this control plane");
  }

  private KubernetesClient clientFor(String user) {
    // A simulator builds one client per node: they share threads and serialization.
    return SharedClientResources.client(configFor(user));
  }

  private Config configFor(String user) {
    Config config = Config.fromKubeconfig(kubeconfigFor(user));
    config.setRequestTimeout(30_000);
    return config;
  }

  private ControlPlane start() throws IOException, InterruptedException {
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    long t0 = System.nanoTime();
    try {
      Path bin = options.binDir != null ? options.binDir : defaultBinDir();
      checkBinaries(bin);
      pki = Pki.create(dir.resolve("pki"));
      try (Stream<Path> files = Files.list(dir.resolve("pki"))) {
        for (Path f : files.toList()) {
          RunDirs.ownerOnly(f);
        }
      }
      tokens = TokenFile.write(dir.resolve("tokens.csv"), options.nodes);
      ComponentCommands commands = new ComponentCommands(bin, dir, pki, options);
      startEtcd(commands);
      startApiServer(commands);
      adminKubeconfig = dir.resolve("admin.kubeconfig");
      RunDirs.writeSecret(adminKubeconfig, kubeconfigFor("admin"));
      client = newClient();
      if (options.controllerManager) {
        startControllerManager(commands);
      }
      if (options.scheduler) {
        startScheduler(commands);
      }
      LOG.info(
          "control plane {} ready at {} in {} ms (dir {})",
          K8S_VERSION,
          apiServerUrl(),
          (System.nanoTime() - t0) / 1_000_000,
          dir);
      return this;
    } catch (IOException | InterruptedException | RuntimeException e) {
      closeQuietly();
      throw e;
    }
  }

  private static void checkBinaries(Path bin) {
    for (String b : BINARIES) {
      if (!Files.isExecutable(bin.resolve(b))) {
        throw new IllegalStateException(
            "control-plane binary "
                + bin.resolve(b)
                + " is missing: run scripts/k8s-binaries.sh (Kubernetes "
                + K8S_VERSION
                + "), or set "
                + KUBEBUILDER_ASSETS_ENV
                + " or "
                + BIN_DIR_ENV
                + " to a folder holding "
                + String.join(", ", BINARIES));
      }
    }
  }

  /** The kubectl of this control plane's version. */
  public Path kubectl() {
    return (options.binDir != null ? options.binDir : defaultBinDir()).resolve("kubectl");
  }

  private void startEtcd(ComponentCommands commands) throws IOException, InterruptedException {
    int client = freePort();
    ManagedProcess etcd = launch("etcd", commands.etcd(client, freePort(), freePort()));
    etcdUrl = "http://127.0.0.1:" + client;
    ReadinessProbe.await(
        etcd,
        URI.create(etcdUrl + "/health"),
        ReadinessProbe.plainHttp(),
        null,
        Duration.ofSeconds(30));
  }

  private String etcdUrl;

  private void startApiServer(ComponentCommands commands) throws IOException, InterruptedException {
    apiServerPort = freePort();
    Path auditPolicy = dir.resolve("audit-policy.yaml");
    Files.writeString(auditPolicy, commands.auditPolicy());
    apiServerCommand =
        List.copyOf(commands.apiServer(etcdUrl, apiServerPort, tokens.path(), auditPolicy));
    launchApiServer();
  }

  private List<String> apiServerCommand;
  private ManagedProcess apiServer;

  private void launchApiServer() throws IOException, InterruptedException {
    apiServer = launch("kube-apiserver", apiServerCommand);
    ReadinessProbe.await(
        apiServer,
        URI.create(apiServerUrl() + "/readyz"),
        ReadinessProbe.trustingHttp(pki.caCert),
        tokens.token("admin"),
        Duration.ofSeconds(90));
  }

  /**
   * Stops kube-apiserver (SIGTERM, then SIGKILL after 10 s) and leaves everything else running, so
   * tests can see what clients do during an outage. {@link #restartApiServer()} brings it back.
   */
  public synchronized void stopApiServer() {
    if (apiServer == null) {
      throw new IllegalStateException("kube-apiserver is not running");
    }
    apiServer.stop(Duration.ofSeconds(10));
    processes.remove(apiServer);
    apiServer = null;
    LOG.info("kube-apiserver at {} stopped", apiServerUrl());
  }

  /**
   * Starts kube-apiserver again with the same flags, port and data (etcd kept running) and waits
   * until it is ready.
   */
  public synchronized void restartApiServer() throws IOException, InterruptedException {
    if (apiServer != null) {
      throw new IllegalStateException("kube-apiserver is running");
    }
    launchApiServer();
    LOG.info("kube-apiserver at {} started again", apiServerUrl());
  }

  /** The API server's audit log: one JSON line per write request (create/update/patch/delete). */
  public Path auditLog() {
    return dir.resolve("audit.log");
  }

  private void startControllerManager(ComponentCommands commands)
      throws IOException, InterruptedException {
    Path kubeconfig = dir.resolve("kcm.kubeconfig");
    RunDirs.writeSecret(kubeconfig, kubeconfigFor("system:kube-controller-manager"));
    int port = freePort();
    ManagedProcess kcm =
        launch("kube-controller-manager", commands.controllerManager(kubeconfig, port));
    awaitHealthz(kcm, port);
  }

  private void startScheduler(ComponentCommands commands) throws IOException, InterruptedException {
    Path kubeconfig = dir.resolve("scheduler.kubeconfig");
    RunDirs.writeSecret(kubeconfig, kubeconfigFor("system:kube-scheduler"));
    int port = freePort();
    awaitHealthz(launch("kube-scheduler", commands.scheduler(kubeconfig, port)), port);
  }

  /** Waits for the /healthz of the controller-manager or scheduler on {@code port}. */
  private static void awaitHealthz(ManagedProcess process, int port)
      throws IOException, InterruptedException {
    ReadinessProbe.await(
        process,
        URI.create("https://127.0.0.1:" + port + "/healthz"),
        ReadinessProbe.insecureHttp(),
        null,
        Duration.ofSeconds(60));
  }

  private synchronized ManagedProcess launch(String name, List<String> command) throws IOException {
    ManagedProcess p = ManagedProcess.start(name, command, dir.resolve(name + ".log"));
    processes.add(p);
    RunDirs.registerProcess(dir, p.pid());
    LOG.debug("started {} (pid {})", name, p.childPids());
    return p;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  /** Stops every process (reverse start order) and removes the temp directory. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (client != null) {
      client.close();
    }
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop(Duration.ofSeconds(10));
    }
    if (Boolean.getBoolean("gpu-operator.keep-control-plane-dir")) {
      RunDirs.release(dir);
    } else {
      RunDirs.remove(dir);
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook is what called us
    }
    LOG.info("control plane at {} stopped", apiServerPort == 0 ? dir : apiServerUrl());
  }

  private void closeQuietly() {
    try {
      close();
    } catch (RuntimeException e) {
      LOG.warn("stopping the control plane: {}", e.toString());
    }
  }

  /** Options for {@link ControlPlane}. */
  public static final class Builder {
    private Path binDir;
    private boolean controllerManager;
    private boolean scheduler;
    // Read by ComponentCommands, which turns them into flags.
    String controllers;
    String nodeMonitorGracePeriod = "40s";
    final List<String> nodes = new ArrayList<>();
    final List<String> extraApiServerArgs = new ArrayList<>();
    private final Map<String, Boolean> featureGates = new TreeMap<>();

    private Builder() {}

    /**
     * Sets a Kubernetes feature gate on the API server, controller-manager and scheduler (the
     * components whose behaviour gates change). Without calls every gate keeps its default, as on a
     * production cluster; tests that depend on a gate name it here so the dependency is stated and
     * survives a change of the pinned version.
     */
    public Builder featureGate(String name, boolean enabled) {
      this.featureGates.put(name, enabled);
      return this;
    }

    Optional<String> featureGatesArg() {
      if (featureGates.isEmpty()) {
        return Optional.empty();
      }
      List<String> gates = new ArrayList<>();
      featureGates.forEach((k, v) -> gates.add(k + "=" + v));
      return Optional.of("--feature-gates=" + String.join(",", gates));
    }

    public Builder binDir(Path binDir) {
      this.binDir = binDir;
      return this;
    }

    /** Runs kube-controller-manager with all its default controllers. */
    public Builder controllerManager(boolean on) {
      this.controllerManager = on;
      return this;
    }

    /** Runs kube-controller-manager with only these controllers (its --controllers syntax). */
    public Builder controllers(String controllers) {
      this.controllerManager = true;
      this.controllers = controllers;
      return this;
    }

    public Builder scheduler(boolean on) {
      this.scheduler = on;
      return this;
    }

    public Builder nodeMonitorGracePeriod(String duration) {
      this.nodeMonitorGracePeriod = duration;
      return this;
    }

    /** Node identities (system:node:NAME) that get a credential, for simulated kubelets. */
    public Builder nodes(List<String> names) {
      this.nodes.addAll(names);
      return this;
    }

    public Builder apiServerArg(String arg) {
      this.extraApiServerArgs.add(arg);
      return this;
    }

    /** Starts everything and waits until it is ready. */
    public ControlPlane start() throws IOException, InterruptedException {
      return new ControlPlane(this).start();
    }
  }
}
