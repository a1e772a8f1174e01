package io.gpuoperator.cli.simulate;

import ch.qos.logback.classic.Level;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Setting;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.WritablePaths;
import io.gpuoperator.config.cli.SettingOptions;
import io.gpuoperator.operator.plan.PolicyFile;
import io.gpuoperator.sim.kubelet.ClusterFile;
import io.gpuoperator.sim.kubelet.FaultSpec;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator simulate}: a whole GPU cluster on this machine, without GPUs. */
@Command(
    name = "simulate",
    modelTransformer = SimulateCommand.Options.class,
    header = "Runs a whole GPU cluster on this machine, without GPUs.",
    description = {
      "Starts a real control plane (etcd, kube-apiserver, kube-controller-manager,"
          + " kube-scheduler), simulated nodes whose kubelets run this project's agents"
          + " in-process against simulated GPUs, and the operator with a ClusterPolicy. Shows"
          + " progress until the policy is ready, then a table; Ctrl-C stops it and removes"
          + " everything it started. Every input is checked before anything starts."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ready (--until-ready) or stopped",
      "1:not ready within --timeout, or the control plane could not start",
      "2:bad input: a flag, the cluster file or the policy (the message names the field and line)",
      "130:stopped by Ctrl-C"
    })
public class SimulateCommand implements Callable<Integer> {
  static final Setting<Path> CLUSTER_FILE =
      Setting.of("--cluster-file", Parse::path)
          .label("FILE")
          .help("The nodes, as YAML (see docs/simulator.md).")
          .orElseDescribed("2 nodes of 8x H100, 4x A100, a CPU node, 2x L4");
  static final Setting<Integer> NODES =
      Setting.of("--nodes", Parse.integer(1, 5000))
          .label("N")
          .help(
              "N nodes of a default mix instead of a cluster file: a quarter each 8x H100, 4x A100,"
                  + " 2x L4, the rest CPU nodes.")
          .orElseDescribed("the --cluster-file's nodes");
  static final Setting<Path> POLICY =
      Setting.of("--filename", Parse::path)
          .alias("-f")
          .label("FILE")
          .help("The ClusterPolicy to apply (validated like plan first).")
          .orElseDescribed("the project's images and --mig-strategy");
  static final Setting<String> MIG_STRATEGY =
      Setting.of("--mig-strategy", Parse.oneOf("MIG strategy", List.of("none", "single", "mixed")))
          .label("none|single|mixed")
          .help("The MIG strategy of the default policy.")
          .orElse("single");
  static final Setting<Path> KUBECONFIG_OUT =
      Setting.of("--kubeconfig-out", Parse::path)
          .label("FILE")
          .help("Where the cluster's admin kubeconfig is written while it runs (mode 0600).")
          .orElse(Path.of("simulate.kubeconfig"));
  static final Setting<Boolean> UNTIL_READY =
      Setting.bool("--until-ready")
          .help("Exit 0 once ready, 1 with the reasons after --timeout.")
          .orElse(false);
  static final Setting<Duration> TIMEOUT =
      Setting.of("--timeout", Parse.duration(Duration.ofSeconds(1), Duration.ofHours(24)))
          .label("DURATION")
          .help("How long to wait for readiness (300s, 5m ...).")
          .orElse(Duration.ofMinutes(5), "5m");
  static final Setting<Boolean> DRY_RUN =
      Setting.bool("--dry-run")
          .help(
              "Check every input (flags, cluster file, MIG layouts, policy) and exit; start nothing.")
          .orElse(false);
  static final Setting<Duration> GRACE =
      Setting.of(
              "--node-monitor-grace-period",
              Parse.duration(Duration.ofSeconds(1), Duration.ofHours(1)))
          .label("DURATION")
          .help("The controller-manager's: how long a silent node stays Ready.")
          .orElse(Duration.ofSeconds(40), "40s");

  static final Setting<Boolean> NODE_AGENTS =
      Setting.bool("--node-agents")
          .help(
              "Run the operator in node-agents mode (NODE_AGENTS=true): our long-running node"
                  + " agents in one nvidia-node-agents DaemonSet.")
          .orElse(false);

  static final Setting<Boolean> WITHOUT_OPERATOR =
      Setting.bool("--without-operator")
          .help(
              "Start no operator and apply no ClusterPolicy (the CRDs and the namespace are"
                  + " installed): for helm install of the chart, whose operator pods the simulated"
                  + " nodes run.")
          .orElse(false);

  /** The options, declared once above. */
  public static final class Options extends SettingOptions {
    public Options() {
      super(
          group(
              "Simulation:",
              List.of(
                  CLUSTER_FILE,
                  NODES,
                  POLICY,
                  MIG_STRATEGY,
                  KUBECONFIG_OUT,
                  UNTIL_READY,
                  TIMEOUT,
                  GRACE,
                  NODE_AGENTS,
                  WITHOUT_OPERATOR,
                  DRY_RUN)));
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-v", "--verbose"},
      description = "Log every component at INFO to stderr, and print stack traces of failures.")
  boolean verbose;

  /** Counted down when the simulation should stop (tests; SIGINT goes through the JVM hook). */
  final CountDownLatch stop = new CountDownLatch(1);

  /** What a run was given, checked: nothing starts before this exists. */
  record Inputs(
      List<NodeDescription> nodes,
      String policy,
      String policySource,
      Path kubeconfigOut,
      boolean untilReady,
      Duration timeout,
      Duration grace,
      boolean nodeAgents,
      boolean withoutOperator,
      List<FaultSpec> faults,
      List<Map<String, Object>> objects) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!verbose) {
      quietLogs();
    }
    Settings settings = SettingOptions.settings(spec, Map.of(), null);
    Inputs in = inputs(settings);
    if (settings.get(DRY_RUN)) {
      out.println(
          "Inputs are valid: "
              + in.nodes().size()
              + " node(s), "
              + (in.faults().isEmpty() ? "" : in.faults().size() + " GPU fault(s), ")
              + (in.objects().isEmpty() ? "" : in.objects().size() + " object(s) to create, ")
              + "ClusterPolicy from "
              + in.policySource()
              + "; nothing was started.");
      out.flush();
      return 0;
    }
    ProgressPrinter progress = new ProgressPrinter(out, in.nodes().size());
    Simulation sim;
    try {
      sim =
          Simulation.builder()
              .nodes(in.nodes())
              .policy(in.policy(), in.policySource())
              .nodeMonitorGracePeriod(in.grace().toSeconds() + "s")
              .kubeconfigOut(in.kubeconfigOut().toAbsolutePath())
              .nodeAgents(in.nodeAgents())
              .withoutOperator(in.withoutOperator())
              .faults(in.faults())
              .beforePolicy(
                  c -> ClusterObjects.create(c, Simulation.DEFAULT_NAMESPACE, in.objects()))
              .progress(progress::step)
              .start();
    } catch (ConfigException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      // e.g. missing control-plane binaries: everything started so far is stopped already
      throw new EnvironmentException(
          "cannot start the simulated cluster: " + e.getMessage().lines().findFirst().orElse(""),
          e);
    }
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              sim.close();
            },
            "simulate-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      out.println("The cluster is up; inspect it while it runs:");
      // The kubectl built with the control plane (same version), not whatever is on PATH.
      out.println(
          "  "
              + sim.controlPlane().kubectl()
              + " --kubeconfig "
              + sim.kubeconfigOut()
              + " get nodes -L "
              + SimulationStatus.PRODUCT_LABEL);
      if (in.withoutOperator()) {
        out.println("Install the operator with the chart (waiting for its ClusterPolicy):");
        out.println(
            "  helm install gpu-operator deploy/helm/gpu-operator -n "
                + sim.namespace()
                + " --kubeconfig "
                + sim.kubeconfigOut());
      }
      printEndpoints(out, sim);
      out.flush();
      SimulationStatus last = sim.awaitReady(in.timeout(), progress::update);
      out.println();
      progress.table(last);
      if (last.ready()) {
        out.printf(
            "Ready in %d s: ClusterPolicy %s ready, every GPU node labelled and advertising its GPUs.%n",
            progress.elapsed().toSeconds(), sim.policyName());
      } else {
        err.println(
            spec.qualifiedName()
                + ": not ready after "
                + io.gpuoperator.config.GoDuration.format(in.timeout())
                + ":");
        last.reasons().forEach(r -> err.println("  " + r));
      }
      printEndpoints(out, sim);
      out.flush();
      if (in.untilReady()) {
        return last.ready() ? 0 : 1;
      }
      out.println("Running until Ctrl-C; changes are printed as they happen.");
      out.flush();
      // Keep reporting what changes (a node going NotReady, an operand restarting) until stopped.
      sim.watch(stop, progress::update);
      return 0;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down: the hook stops the simulation
      }
      sim.close();
    }
  }

  /** The addresses a user would open: API server, kubeconfig, operator, exporters. */
  static void printEndpoints(PrintWriter out, Simulation sim) {
    var endpoints = sim.endpoints();
    int width = endpoints.stream().mapToInt(e -> e.getKey().length()).max().orElse(0);
    out.println("Endpoints:");
    for (var e : endpoints) {
      out.printf("  %-" + width + "s  %s%n", e.getKey(), e.getValue());
    }
  }

  /** Reads and checks every input: flags, the cluster file, the MIG layouts, the policy. */
  static Inputs inputs(Settings s) {
    Duration timeout = s.get(TIMEOUT);
    Duration grace = s.get(GRACE);
    String mig = s.get(MIG_STRATEGY);
    Settings.Resolved<Path> out = s.resolve(KUBECONFIG_OUT);
    WritablePaths.file(out.value(), KUBECONFIG_OUT.flag());
    List<NodeDescription> nodes;
    List<FaultSpec> faults = List.of();
    List<Map<String, Object>> objects = List.of();
    Path clusterFile = s.get(CLUSTER_FILE);
    Integer count = s.get(NODES);
    if (count != null && clusterFile != null) {
      throw new ConfigException(
          "--nodes and --cluster-file: give one of them (--nodes is a default mix of nodes)");
    }
    if (count != null) {
      nodes = Simulation.mixedCluster(count);
    } else if (clusterFile == null) {
      nodes = Simulation.defaultCluster();
    } else {
      ClusterFile file =
          prefixed(
              "--cluster-file",
              () -> {
                ClusterFile read = ClusterFile.read(clusterFile);
                SimulatedGpuBackends.check(read);
                return read;
              });
      nodes = file.nodes();
      faults = file.faults();
      objects = file.objects();
    }
    Path policyFile = s.get(POLICY);
    boolean withoutOperator = s.get(WITHOUT_OPERATOR);
    if (withoutOperator && (policyFile != null || s.get(NODE_AGENTS))) {
      throw new ConfigException(
          "--without-operator: the chart's values choose the policy and node-agents mode; drop "
              + (policyFile != null ? "-f" : "--node-agents"));
    }
    String policy;
    String source;
    if (policyFile == null) {
      policy = Simulation.defaultPolicy(mig);
      source = "the default policy (mig strategy " + mig + ")";
    } else {
      var doc = prefixed("-f", () -> Documents.read(policyFile));
      PolicyFile parsed = PolicyFile.of(doc);
      if (!parsed.valid()) {
        throw new ConfigException(
            "-f: not a valid ClusterPolicy: "
                + parsed.errors().stream().map(parsed::where).collect(Collectors.joining("; ")));
      }
      try {
        policy = java.nio.file.Files.readString(policyFile);
      } catch (IOException e) {
        throw new ConfigException("-f " + policyFile + ": cannot read: " + e.getMessage(), e);
      }
      source = policyFile.toString();
    }
    return new Inputs(
        nodes,
        policy,
        withoutOperator ? "the chart" : source,
        out.value(),
        s.get(UNTIL_READY),
        timeout,
        grace,
        s.get(NODE_AGENTS),
        withoutOperator,
        faults,
        objects);
  }

  private static <T> T prefixed(String flag, java.util.function.Supplier<T> read) {
    try {
      return read.get();
    } catch (ConfigException e) {
      throw new ConfigException(flag + " " + e.getMessage(), e);
    }
  }

  private static void quietLogs() {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
        .setLevel(Level.WARN);
    // logback.xml raises the operator SDK to INFO for the operator command; not here.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.javaoperatorsdk"))
        .setLevel(Level.WARN);
    // Netty warns about a socket option Unix sockets lack on every connection.
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.grpc.netty.shaded"))
        .setLevel(Level.ERROR);
  }
}
