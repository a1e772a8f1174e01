package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.plan.PolicyFile;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import io.gpuoperator.operator.runtime.GpuOperator;
import io.gpuoperator.operator.runtime.OperatorClients;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.controlplane.ControlPlaneSizing;
import io.gpuoperator.sim.controlplane.RunDirs;
import io.gpuoperator.sim.kubelet.DevicePluginSupport;
import io.gpuoperator.sim.kubelet.DraSupport;
import io.gpuoperator.sim.kubelet.FaultSpec;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole GPU cluster on this machine: a real control plane (etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler), one simulated kubelet per node with the kubelet side of
 * the device-plugin API, this project's agents running in-process in the pods bound to them, the
 * CRDs, a ClusterPolicy and the operator. {@link #close()} stops every process and removes every
 * directory it created.
 */
public final class Simulation implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Simulation.class);

  /**
   * The project's default policy: this project's images (none set, so the operator's defaults), the
   * MIG strategy given, and the operands the original's Helm chart enables by default (the
   * standalone DCGM and the node-status exporter are off there), with driver auto-upgrade on as the
   * chart has it.
   */
  public static String defaultPolicy(String migStrategy) {
    return clusterPolicy(
        """
        mig:
          strategy: %s
        dcgm:
          enabled: false
        nodeStatusExporter:
          enabled: false
        driver:
          upgradePolicy:
            autoUpgrade: true
        """
            .formatted(migStrategy));
  }

  /** The ClusterPolicy {@code cluster-policy} with the spec given (YAML: the fields under spec). */
  public static String clusterPolicy(String spec) {
    return """
        apiVersion: nvidia.com/v1
        kind: ClusterPolicy
        metadata:
          name: cluster-policy
        spec:
        """
        + spec.indent(2);
  }

  /** The default cluster: 2 nodes of 8x H100-80GB, 4x A100-40GB, a node without GPU, 2x L4. */
  public static List<NodeDescription> defaultCluster() {
    return List.of(
        NodeDescription.gpuNode("h100-0", "H100-SXM5-80GB", 8),
        NodeDescription.gpuNode("h100-1", "H100-SXM5-80GB", 8),
        NodeDescription.gpuNode("a100-0", "A100-SXM4-40GB", 4),
        NodeDescription.cpuNode("cpu-0"),
        NodeDescription.gpuNode("l4-0", "L4", 2));
  }

  /**
   * {@code n} nodes for scale runs ({@code simulate --nodes N}): a quarter each of 8x H100 ({@code
   * h100-<i>}), 4x A100 ({@code a100-<i>}) and 2x L4 ({@code l4-<i>}), the rest CPU nodes ({@code
   * cpu-<i>}); for n under 4 the first kinds in that order.
   */
  public static List<NodeDescription> mixedCluster(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("a cluster needs at least one node, not " + n);
    }
    int quarter = n / 4;
    int[] counts = {quarter, quarter, quarter, n - 3 * quarter};
    if (quarter == 0) {
      counts = new int[] {1, n > 1 ? 1 : 0, n > 2 ? 1 : 0, 0};
    }
    List<NodeDescription> out = new ArrayList<>(n);
    for (int i = 0; i < counts[0]; i++) {
      out.add(NodeDescription.gpuNode("h100-" + i, "H100-SXM5-80GB", 8));
    }
    for (int i = 0; i < counts[1]; i++) {
      out.add(NodeDescription.gpuNode("a100-" + i, "A100-SXM4-40GB", 4));
    }
    for (int i = 0; i < counts[2]; i++) {
      out.add(NodeDescription.gpuNode("l4-" + i, "L4", 2));
    }
    for (int i = 0; i < counts[3]; i++) {
      out.add(NodeDescription.cpuNode("cpu-" + i));
    }
    return List.copyOf(out);
  }

  private final Builder options;
  private final List<AutoCloseable> resources = new ArrayList<>();
  private ControlPlane controlPlane;
  private KubernetesClient admin;
  private ClusterView view;
  private SimulatedCluster cluster;
  private GpuOperator operator;
  private ClusterPolicy policy;
  private FaultSchedule faults;
  private boolean closed;

  private Simulation(Builder options) {
    this.options = options;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts everything, reporting each long step to the progress consumer. */
  private Simulation start() throws IOException, InterruptedException {
    PolicyFile parsed = PolicyFile.parse(options.policyYaml, options.policySource);
    if (!parsed.valid()) {
      throw new ConfigException(
          "not a valid ClusterPolicy: "
              + parsed.errors().stream().map(parsed::where).collect(Collectors.joining("; ")));
    }
    policy = parsed.policy();
    List<String> names = options.nodes.stream().map(NodeDescription::name).toList();
    for (NodeDescription d : options.nodes) {
      SimulatedGpuBackends.profile(d); // bad MIG layouts fail here, before anything starts
    }
    for (FaultSpec f : options.faults) {
      if (!names.contains(f.node())) {
        throw new IllegalArgumentException("fault " + f.describe() + ": no such node");
      }
    }
    try {
      step("starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler");
      // Heartbeats further apart on a large cluster, the grace period with them (docs/simulator.md,
      // "Sized for the cluster").
      ControlPlaneSizing sizing = ControlPlaneSizing.forNodes(names.size());
      KubeletOptions kubeletOptions =
          options.kubeletOptions.withLeaseRenewInterval(
              sizing.heartbeat(options.kubeletOptions.leaseRenewInterval()));
      ControlPlane.Builder builder =
          ControlPlane.builder()
              .controllerManager(true)
              .scheduler(true)
              .nodeMonitorGracePeriod(sizing.heartbeat(options.nodeMonitorGracePeriod))
              .nodes(names);
      options.featureGates.forEach(builder::featureGate);
      controlPlane = builder.start();
      resources.add(controlPlane);
      admin = controlPlane.client();
      step("installing the CRDs and namespace " + options.namespace);
      Crds.apply(admin);
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(options.namespace)
                  .endMetadata()
                  .build())
          .create();
      options.beforePolicy.accept(admin);

      step("starting " + names.size() + " simulated nodes");
      cluster = SimulatedCluster.start(controlPlane, options.nodes, kubeletOptions);
      resources.add(cluster);
      faults = new FaultSchedule(options.faults, cluster.backends());
      resources.add(faults);

      if (options.withoutOperator) {
        step(
            "not starting the operator: helm install the chart into namespace "
                + options.namespace
                + " (the nodes' kubelets run its operator pods)");
      } else {
        step("starting the operator (namespace " + options.namespace + ")");
        KubernetesClient operatorClient =
            OperatorClients.create(
                controlPlane.kubeconfig(),
                "gpu-operator/" + OperandImages.projectVersion() + " (simulate)");
        resources.add(operatorClient);
        // The agents this binary has come from its own command tree, as in the real operator.
        OperatorConfig config =
            OperatorConfig.fromEnv(
                    Map.of(
                        "OPERATOR_NAMESPACE", options.namespace,
                        "METRICS_PORT", "0",
                        "HEALTH_PORT", "0",
                        "LEADER_ELECT", "false"))
                .withAgents(GpuOperatorCommand.commandLine().getSubcommands().keySet())
                .withNodeAgents(options.nodeAgents);
        operator =
            new GpuOperator(
                    operatorClient,
                    config,
                    new OperandRegistryRenderer(),
                    new NodeLabelRulesPlanner(),
                    GpuOperator.Options.on("127.0.0.1", "simulate", false, 8))
                .start();
        resources.add(operator);

        if (options.gpuCluster != null) {
          // The DRA stack alone, as NVIDIA's newest operator deploys it (no ClusterPolicy may
          // exist beside it).
          step("applying GPUCluster " + options.gpuCluster.getMetadata().getName());
          admin.resources(GPUCluster.class).resource(options.gpuCluster).create();
        } else {
          step(
              "applying ClusterPolicy "
                  + policy.getMetadata().getName()
                  + " ("
                  + options.policySource
                  + ")");
          admin.resources(ClusterPolicy.class).resource(policy).create();
        }
      }
      view =
          ClusterView.start(
              admin, cluster.nodeCache(), options.nodes, options.namespace, policyName());
      resources.add(view);
      if (options.kubeconfigOut != null) {
        Files.createDirectories(options.kubeconfigOut.toAbsolutePath().getParent());
        // Registered with the run: a later run removes it if this one is killed.
        RunDirs.register(controlPlane.directory(), options.kubeconfigOut);
        ContainerPaths.writeAtomically(
            options.kubeconfigOut, Files.readString(controlPlane.kubeconfig()));
      }
      return this;
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void step(String what) {
    LOG.info("simulate: {}", what);
    options.progress.accept(what);
  }

  /** The operator's namespace unless {@link Builder#namespace} names another. */
  public static final String DEFAULT_NAMESPACE = "gpu-operator";

  /** The admin client of the simulated cluster. */
  public KubernetesClient client() {
    return admin;
  }

  public ControlPlane controlPlane() {
    return controlPlane;
  }

  public List<NodeDescription> nodes() {
    return options.nodes;
  }

  public String namespace() {
    return options.namespace;
  }

  public String policyName() {
    return policy.getMetadata().getName();
  }

  /** The kubeconfig written for users, or null. */
  public Path kubeconfigOut() {
    return options.kubeconfigOut;
  }

  public SimulatedKubelet kubelet(String node) {
    return cluster.kubelet(node);
  }

  /** The kubelet side of the device-plugin and pod-resources APIs of a node. */
  public DevicePluginSupport devicePlugins(String node) {
    return cluster.devices(node);
  }

  public SimulatedGpuBackends backends() {
    return cluster.backends();
  }

  /** The kubelet side of DRA of a node (plugin watcher, prepared claims). */
  public DraSupport dra(String node) {
    return cluster.dra(node);
  }

  /** The in-process DRA plugin agent (what it set on the nodes' simulated GPUs). */
  public DraPluginInProcessAgent draPlugin() {
    return cluster.draPlugin();
  }

  /**
   * What a user would open, in order: the API server and the kubeconfig, each operator's metrics
   * and health (the in-process one, or the chart's pods), each node's exporter once it runs.
   */
  public List<Map.Entry<String, String>> endpoints() {
    List<Map.Entry<String, String>> out = new java.util.ArrayList<>();
    out.add(Map.entry("API server", controlPlane.apiServerUrl()));
    if (options.kubeconfigOut != null) {
      out.add(Map.entry("kubeconfig", options.kubeconfigOut.toString()));
    }
    if (operator != null) {
      out.add(Map.entry("operator metrics", metricsUrl(operator.metricsPort())));
      out.add(Map.entry("operator health", healthUrl(operator.healthPort())));
    }
    for (var r : new java.util.TreeMap<>(cluster.operator().running()).values()) {
      String pod = " (pod " + r.pod() + ")";
      out.add(Map.entry("operator metrics" + pod, metricsUrl(r.operator().metricsPort())));
      out.add(Map.entry("operator health" + pod, healthUrl(r.healthPort())));
    }
    for (NodeDescription d : options.nodes) {
      Integer port = exporterPort(d.name());
      if (port != null) {
        out.add(Map.entry("exporter " + d.name(), metricsUrl(port)));
      }
    }
    return out;
  }

  private static String metricsUrl(int port) {
    return "http://127.0.0.1:" + port + "/metrics";
  }

  private static String healthUrl(int port) {
    return "http://127.0.0.1:" + port + "/healthz";
  }

  /** The port of a node's metrics exporter on 127.0.0.1 (null while none runs). */
  public Integer exporterPort(String node) {
    return cluster.exporterPort(node);
  }

  /** The temp directory holding every node's directories. */
  public Path nodesRoot() {
    return cluster.root();
  }

  /**
   * Starts the cluster file's fault schedule (its times count from now); {@link #awaitReady} calls
   * it once the cluster is ready, {@link #watch} in any case. Later calls do nothing.
   */
  public void startFaults() {
    if (faults != null) {
      faults.start();
    }
  }

  /** The GPU faults injected so far, in order. */
  List<FaultSchedule.Injected> injectedFaults() {
    return faults == null ? List.of() : faults.injected();
  }

  /** What the cluster looks like now: read from the API server (three lists). */
  public SimulationStatus status() {
    return SimulationStatus.read(admin, options.nodes, options.namespace, policyName());
  }

  /** What the cluster looks like, as the simulation's watches last heard. */
  private SimulationStatus watchedStatus() {
    return view == null ? status() : view.status();
  }

  /**
   * Waits until the ClusterPolicy is ready and every GPU node advertises its GPUs; calls {@code
   * onChange} with each new status. Returns the last status either way.
   */
  public SimulationStatus awaitReady(Duration timeout, Consumer<SimulationStatus> onChange)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    SimulationStatus last = null;
    while (true) {
      SimulationStatus now;
      try {
        now = watchedStatus();
      } catch (RuntimeException e) {
        LOG.warn("simulate: reading the cluster's status failed: {}", e.toString());
        now = last;
      }
      if (now != null && !now.equals(last)) {
        onChange.accept(now);
        last = now;
      }
      if (now != null && now.ready()) {
        startFaults();
        return last;
      }
      if (System.nanoTime() > deadline) {
        return last;
      }
      // Every half second, slower for large clusters (2 ms a node): each look walks every node
      // and pod.
      Thread.sleep(Math.max(500, 2L * options.nodes.size()));
    }
  }

  /**
   * Reports each change of the cluster's status to {@code onChange} until {@code stop} is counted
   * down (after readiness: a node going NotReady, an operand restarting).
   */
  public void watch(java.util.concurrent.CountDownLatch stop, Consumer<SimulationStatus> onChange)
      throws InterruptedException {
    startFaults(); // never ready, still running: the faults were asked for all the same
    SimulationStatus last = null;
    while (!stop.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
      SimulationStatus now;
      try {
        now = watchedStatus();
      } catch (RuntimeException e) {
        continue; // the API server may be stalled; try again
      }
      if (!now.equals(last)) {
        onChange.accept(now);
        last = now;
      }
    }
  }

  /** Stops the operator, the kubelets and their containers, the control plane; removes dirs. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        LOG.warn("simulate: stopping {} failed: {}", resources.get(i).getClass(), e.toString());
      }
    }
    if (options.kubeconfigOut != null) {
      try {
        // It points at a cluster that no longer exists.
        Files.deleteIfExists(options.kubeconfigOut);
      } catch (IOException e) {
        LOG.warn("simulate: cannot remove {}: {}", options.kubeconfigOut, e.toString());
      }
    }
  }

  /** What to simulate. */
  public static final class Builder {
    private List<NodeDescription> nodes = defaultCluster();
    private String policyYaml = defaultPolicy("single");
    private String policySource = "the default policy";
    private String namespace = DEFAULT_NAMESPACE;
    private String nodeMonitorGracePeriod = "40s";
    private KubeletOptions kubeletOptions =
        // A real kubelet's heartbeats (lease 10 s, status re-posted unchanged every 5 min: at
        // 1,000 nodes a shorter report would be a Node update every few milliseconds, decoded by
        // every Node watcher); a short restart back-off, so a failing container shows quickly.
        new KubeletOptions(
            Duration.ofSeconds(10),
            Duration.ofMinutes(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(10));
    private Path kubeconfigOut;
    private Consumer<String> progress = s -> {};
    private Consumer<KubernetesClient> beforePolicy = c -> {};
    private final Map<String, Boolean> featureGates = new java.util.TreeMap<>();
    private boolean nodeAgents;
    private boolean withoutOperator;
    private GPUCluster gpuCluster;
    private List<FaultSpec> faults = List.of();

    private Builder() {}

    /**
     * GPU faults to inject (a cluster file's {@code faults:}), their times counted from the moment
     * the simulation is first ready; each names a node of {@link #nodes}.
     */
    public Builder faults(List<FaultSpec> faults) {
      this.faults = List.copyOf(faults);
      return this;
    }

    /**
     * No operator and no ClusterPolicy (the CRDs and the namespace are installed): for {@code helm
     * install} of the chart, whose operator pods the simulated kubelets run in-process, and whose
     * ClusterPolicy ({@code cluster-policy}) the simulation then waits for.
     */
    public Builder withoutOperator(boolean on) {
      this.withoutOperator = on;
      return this;
    }

    /**
     * A GPUCluster ({@code nvidia.com/v1alpha1}, YAML of the whole object) applied instead of the
     * ClusterPolicy: the operator deploys the DRA stack only (and runs ComputeDomains when it
     * enables them). Nothing validates the driver there, so the DRA plugin waits for the nodes'
     * {@code driver-ready} marker, which the caller writes.
     */
    public Builder gpuCluster(String yaml) {
      this.gpuCluster =
          io.fabric8.kubernetes.client.utils.Serialization.unmarshal(yaml, GPUCluster.class);
      return this;
    }

    /** The operator in node-agents mode ({@code NODE_AGENTS=true}). */
    public Builder nodeAgents(boolean on) {
      this.nodeAgents = on;
      return this;
    }

    /** A feature gate of every control-plane component (see ControlPlane.Builder#featureGate). */
    public Builder featureGate(String name, boolean enabled) {
      this.featureGates.put(name, enabled);
      return this;
    }

    public Builder nodes(List<NodeDescription> nodes) {
      if (nodes.isEmpty()) {
        throw new IllegalArgumentException("a simulation needs at least one node");
      }
      this.nodes = List.copyOf(nodes);
      return this;
    }

    /** The ClusterPolicy YAML; {@code source} names it in errors (e.g. the file). */
    public Builder policy(String yaml, String source) {
      this.policyYaml = yaml;
      this.policySource = source;
      return this;
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    /** The controller-manager's --node-monitor-grace-period (default 40s, as Kubernetes). */
    public Builder nodeMonitorGracePeriod(String duration) {
      this.nodeMonitorGracePeriod = duration;
      return this;
    }

    public Builder kubeletOptions(KubeletOptions options) {
      this.kubeletOptions = options;
      return this;
    }

    /** Where to write the cluster's admin kubeconfig (removed on close); null for nowhere. */
    public Builder kubeconfigOut(Path file) {
      this.kubeconfigOut = file;
      return this;
    }

    /** Hears each long start-up step. */
    public Builder progress(Consumer<String> progress) {
      this.progress = progress;
      return this;
    }

    /** Runs with the admin client after the namespace exists and before the policy is applied. */
    public Builder beforePolicy(Consumer<KubernetesClient> action) {
      this.beforePolicy = action;
      return this;
    }

    /** Starts the simulation; on failure everything started so far is stopped. */
    public Simulation start() throws IOException, InterruptedException {
      return new Simulation(this).start();
    }
  }
}
