package io.gpuoperator.sim.controlplane;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
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
  private final Map<String, String> tokens = new LinkedHashMap<>();

  /** The node clients' connections (SharedClientResources.SharedConnections says why shared). */
  private final SharedClientResources.SharedConnections nodeConnections =
      new SharedClientResources.SharedConnections(NODES_PER_CONNECTION);

  private final List<ManagedProcess> processes = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::closeQuietly, "control-plane-shutdown");
  private Pki pki;
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
    String token = tokens.get(user);
    if (token == null) {
      throw new IllegalArgumentException(
          "no credential for " + user + "; declare node identities in ControlPlane.builder()");
    }
    try {
      String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(pki.caCert));
      return "apiVersion: v1\nkind: Config\n"
          + "clusters:\n- name: sim\n  cluster:\n    server: "
          + apiServerUrl()
          + "\n"
          + "    certificate-authority-data: "
          + ca
          + "\n"
          + "users:\n- name: "
          + user
          + "\n  user:\n    token: "
          + token
          + "\n"
          + "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: "
          + user
          + "\n"
          + "current-context: sim\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
      writeTokens();
      startEtcd(bin);
      startApiServer(bin);
      adminKubeconfig = dir.resolve("admin.kubeconfig");
      RunDirs.writeSecret(adminKubeconfig, kubeconfigFor("admin"));
      client = newClient();
      if (options.controllerManager) {
        startControllerManager(bin);
      }
      if (options.scheduler) {
        startScheduler(bin);
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

  private void writeTokens() throws IOException {
    StringBuilder csv = new StringBuilder();
    addToken(csv, "admin", "system:masters");
    addToken(csv, "system:kube-controller-manager", null);
    addToken(csv, "system:kube-scheduler", null);
    for (String node : options.nodes) {
      addToken(csv, "system:node:" + node, "system:nodes");
    }
    RunDirs.writeSecret(dir.resolve("tokens.csv"), csv.toString());
  }

  private void addToken(StringBuilder csv, String user, String group) {
    byte[] raw = new byte[24];
    new SecureRandom().nextBytes(raw);
    String token = HexFormat.of().formatHex(raw);
    tokens.put(user, token);
    csv.append(token).append(',').append(user).append(',').append(user);
    if (group != null) {
      csv.append(",\"").append(group).append('"');
    }
    csv.append('\n');
  }

  private void startEtcd(Path bin) throws IOException, InterruptedException {
    int client = freePort();
    int peer = freePort();
    int metrics = freePort();
    ManagedProcess etcd =
        launch(
            "etcd",
            List.of(
                bin.resolve("etcd").toString(),
                "--name=sim",
                "--data-dir=" + dir.resolve("etcd-data"),
                "--listen-client-urls=http://127.0.0.1:" + client,
                "--advertise-client-urls=http://127.0.0.1:" + client,
                "--listen-peer-urls=http://127.0.0.1:" + peer,
                "--initial-advertise-peer-urls=http://127.0.0.1:" + peer,
                "--initial-cluster=sim=http://127.0.0.1:" + peer,
                "--listen-metrics-urls=http://127.0.0.1:" + metrics,
                "--unsafe-no-fsync=true"));
    etcdUrl = "http://127.0.0.1:" + client;
    waitHttp(etcd, URI.create(etcdUrl + "/health"), plainHttp(), null, Duration.ofSeconds(30));
  }

  private String etcdUrl;

  /**
   * The components' flags for the number of node identities (docs/simulator.md, "Sized for the
   * cluster").
   */
  private ControlPlaneSizing sizing() {
    return ControlPlaneSizing.forNodes(options.nodes.size());
  }

  private void startApiServer(Path bin) throws IOException, InterruptedException {
    apiServerPort = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-apiserver").toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + apiServerPort,
                // Node clients share connections, NODES_PER_CONNECTION each; the JDK client fails
                // a request beyond the server's stream limit instead of opening another one.
                "--http2-max-streams-per-connection=" + 20 * NODES_PER_CONNECTION,
                "--tls-cert-file=" + pki.serverCert,
                "--tls-private-key-file=" + pki.serverKey,
                "--client-ca-file=" + pki.caCert,
                "--requestheader-client-ca-file=" + pki.frontProxyCaCert,
                "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-username-headers=X-Remote-User",
                "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                "--token-auth-file=" + dir.resolve("tokens.csv"),
                "--authorization-mode=Node,RBAC",
                // Added to the defaults a production cluster runs (NamespaceLifecycle,
                // ServiceAccount, PodSecurity, ResourceQuota, the admission webhooks and
                // policies ...): NodeRestriction as every kubeadm cluster, and
                // ExtendedResourceToleration so pods asking for nvidia.com/gpu tolerate the GPU
                // taint, as docs/configuration.md tells users to enable.
                "--enable-admission-plugins=NodeRestriction,ExtendedResourceToleration",
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-account-key-file=" + pki.serviceAccountPub,
                "--service-account-signing-key-file=" + pki.serviceAccountKey,
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true",
                "--endpoint-reconciler-type=none",
                "--audit-log-path=" + dir.resolve("audit.log"),
                "--audit-policy-file=" + writeAuditPolicy(),
                "--audit-log-format=json"));
    args.addAll(sizing().apiServerArgs());
    args.addAll(options.extraApiServerArgs);
    options.featureGatesArg().ifPresent(args::add);
    apiServerCommand = List.copyOf(args);
    launchApiServer();
  }

  private List<String> apiServerCommand;
  private ManagedProcess apiServer;

  private void launchApiServer() throws IOException, InterruptedException {
    apiServer = launch("kube-apiserver", apiServerCommand);
    waitHttp(
        apiServer,
        URI.create(apiServerUrl() + "/readyz"),
        trustingHttp(pki.caCert),
        tokens.get("admin"),
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

  /**
   * Write requests are recorded in {@link #auditLog()} so tests can count what a component wrote
   * (for example: an idle operator writes nothing); above 100 nodes without the nodes' lease
   * renewals and pod status ({@link ControlPlaneSizing#auditsNodeStatus()}).
   */
  private Path writeAuditPolicy() throws IOException {
    Path policy = dir.resolve("audit-policy.yaml");
    Files.writeString(
        policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
            + (sizing().auditsNodeStatus()
                ? ""
                : "- level: None\n  userGroups: [\"system:nodes\"]\n  verbs: [update, patch]\n"
                    + "  resources:\n  - {group: coordination.k8s.io, resources: [leases]}\n"
                    + "  - {group: \"\", resources: [pods/status]}\n")
            + "- level: Metadata\n  verbs: [create, update, patch, delete, deletecollection]\n"
            + "- level: None\n");
    return policy;
  }

  /** The API server's audit log: one JSON line per write request (create/update/patch/delete). */
  public Path auditLog() {
    return dir.resolve("audit.log");
  }

  private void startControllerManager(Path bin) throws IOException, InterruptedException {
    Path kubeconfig = dir.resolve("kcm.kubeconfig");
    RunDirs.writeSecret(kubeconfig, kubeconfigFor("system:kube-controller-manager"));
    int port = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-controller-manager").toString(),
                "--kubeconfig=" + kubeconfig,
                "--authentication-kubeconfig=" + kubeconfig,
                "--authorization-kubeconfig=" + kubeconfig,
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--leader-elect=false",
                "--use-service-account-credentials=true",
                "--service-account-private-key-file=" + pki.serviceAccountKey,
                "--root-ca-file=" + pki.caCert,
                "--cluster-signing-cert-file=" + pki.caCert,
                "--cluster-signing-key-file=" + pki.caKey,
                "--node-monitor-grace-period=" + options.nodeMonitorGracePeriod,
                "--cert-dir=" + dir.resolve("kcm-certs"),
                "--cloud-provider="));
    if (options.controllers != null) {
      args.add("--controllers=" + options.controllers);
    }
    args.addAll(sizing().controllerManagerArgs());
    options.featureGatesArg().ifPresent(args::add);
    ManagedProcess kcm = launch("kube-controller-manager", args);
    waitHttp(
        kcm,
        URI.create("https://127.0.0.1:" + port + "/healthz"),
        insecureHttp(),
        null,
        Duration.ofSeconds(60));
  }

  private void startScheduler(Path bin) throws IOException, InterruptedException {
    Path kubeconfig = dir.resolve("scheduler.kubeconfig");
    RunDirs.writeSecret(kubeconfig, kubeconfigFor("system:kube-scheduler"));
    int port = freePort();
    List<String> args =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-scheduler").toString(),
                "--kubeconfig=" + kubeconfig,
                "--authentication-kubeconfig=" + kubeconfig,
                "--authorization-kubeconfig=" + kubeconfig,
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--cert-dir=" + dir.resolve("scheduler-certs"),
                "--leader-elect=false"));
    args.addAll(sizing().schedulerArgs());
    options.featureGatesArg().ifPresent(args::add);
    ManagedProcess sched = launch("kube-scheduler", args);
    waitHttp(
        sched,
        URI.create("https://127.0.0.1:" + port + "/healthz"),
        insecureHttp(),
        null,
        Duration.ofSeconds(60));
  }

  private synchronized ManagedProcess launch(String name, List<String> command) throws IOException {
    ManagedProcess p = ManagedProcess.start(name, command, dir.resolve(name + ".log"));
    processes.add(p);
    LOG.debug("started {} (pid {})", name, p.childPids());
    return p;
  }

  private void waitHttp(
      ManagedProcess process, URI uri, HttpClient http, String token, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            process.name()
                + " exited before it was ready; last lines of its log:\n"
                + process.logTail(30));
      }
      try {
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5));
        if (token != null) {
          req.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200) {
          return;
        }
        last = resp.statusCode() + " " + resp.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(200);
    }
    throw new IOException(
        process.name()
            + " not ready at "
            + uri
            + " after "
            + timeout.toSeconds()
            + " s ("
            + last
            + "); last lines of its log:\n"
            + process.logTail(30));
  }

  // The readiness probes speak HTTP/1.1: the 1.36 controller-manager and scheduler answer a Java
  // HTTP/2 probe of /healthz with GOAWAY until their authentication delegate is up, and never
  // after.
  private static HttpClient plainHttp() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
  }

  private static HttpClient trustingHttp(Path caCert) throws IOException {
    try (var in = Files.newInputStream(caCert)) {
      X509Certificate ca =
          (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry("ca", ca);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      return HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(ssl)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot trust " + caCert + ": " + e, e);
    }
  }

  /** Controller-manager and scheduler serve self-signed certificates; only liveness is checked. */
  private static HttpClient insecureHttp() throws IOException {
    try {
      TrustManager trustAll =
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          };
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, new TrustManager[] {trustAll}, null);
      return HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .sslContext(ssl)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
    } catch (Exception e) {
      throw new IOException(e);
    }
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
    if (!Boolean.getBoolean("gpu-operator.keep-control-plane-dir")) {
      RunDirs.deleteTree(dir);
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
    private String controllers;
    private boolean scheduler;
    private String nodeMonitorGracePeriod = "40s";
    private final List<String> nodes = new ArrayList<>();
    private final List<String> extraApiServerArgs = new ArrayList<>();
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
