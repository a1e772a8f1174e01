package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Values;
import io.gpuoperator.config.zap.ZapOptions;
import io.gpuoperator.config.zap.ZapSettings;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import java.io.File;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpu-operator operator}: runs the operator until the process is stopped. */
@Command(
    name = "operator",
    header = "Runs the GPU operator until it is stopped.",
    description = {
      "Reconciles the active ClusterPolicy into operands, labels and taints GPU nodes and reports"
          + " status. Configuration comes from environment variables (OPERATOR_NAMESPACE,"
          + " DRIVER_IMAGE, ...; see docs/operator.md); the flags below override them. Logs go to"
          + " stderr as controller-runtime's zap logger writes them (JSON lines by default), set"
          + " by the same --zap-* flags as NVIDIA's operator."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the cluster failed (API server unreachable, lease lost)",
      "2:bad input: a flag, a variable or the kubeconfig (the message names it)"
    })
public class OperatorCommand implements Callable<Integer> {
  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Kubeconfig file (default: in-cluster, then KUBECONFIG, then ~/.kube/config).")
  File kubeconfig;

  @Option(
      names = "--metrics-bind-address",
      paramLabel = "[HOST]:PORT",
      description = "Address of the Prometheus /metrics endpoint (default :$METRICS_PORT, :8080).")
  String metricsAddress;

  @Option(
      names = "--health-probe-bind-address",
      paramLabel = "[HOST]:PORT",
      description = "Address of /healthz and /readyz (default :$HEALTH_PORT, :8081).")
  String healthAddress;

  @Option(
      names = "--leader-elect",
      paramLabel = "BOOL",
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Elect a leader on a Lease so that only one replica reconciles (default $LEADER_ELECT, true).")
  Boolean leaderElect;

  @Option(
      names = "--leader-elect-namespace",
      paramLabel = "NS",
      description =
          "Namespace of the Lease (default $LEADER_ELECT_NAMESPACE or OPERATOR_NAMESPACE).")
  String leaderElectNamespace;

  /** controller-runtime's zap flags, stack traces preset to panic as NVIDIA's operator does. */
  @Mixin Zap zap;

  /** The operator's zap flags: NVIDIA's operator presets the stack trace level to panic. */
  public static final class Zap extends ZapOptions {
    @Override
    protected Integer stacktracePreset() {
      return ZapSettings.PANIC;
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    OperatorConfig config;
    try {
      config = overrides(OperatorConfig.fromEnv(System.getenv()));
    } catch (ConfigException e) {
      throw e; // the command line's one-line error and exit 2
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("gpu-operator operator: " + e.getMessage());
      return 2;
    }
    String host = bindHost(metricsAddress);
    String identity = identity();
    KubernetesClient client =
        OperatorClients.create(
            kubeconfig == null ? null : kubeconfig.toPath(),
            "gpu-operator/" + OperandImages.projectVersion());
    GpuOperator operator =
        new GpuOperator(
            client,
            config,
            new OperandRegistryRenderer(),
            new NodeLabelRulesPlanner(),
            new GpuOperator.Options(
                identity,
                bindHost(metricsAddress),
                bindHost(healthAddress),
                true,
                GpuOperator.Options.NODE_WORKERS));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.close();
                  client.close();
                  stopped.countDown();
                },
                "gpu-operator-shutdown"));
    operator.start();
    stopped.await();
    return 0;
  }

  /** The environment's configuration with the flags applied. */
  OperatorConfig overrides(OperatorConfig env) {
    return new OperatorConfig(
        env.namespace(),
        env.images(),
        metricsAddress == null ? env.metricsPort() : port("--metrics-bind-address", metricsAddress),
        healthAddress == null
            ? env.healthPort()
            : port("--health-probe-bind-address", healthAddress),
        leaderElect == null ? env.leaderElection() : leaderElect,
        leaderElectNamespace == null ? env.leaderElectionNamespace() : leaderElectNamespace,
        env.leaseDuration(),
        env.renewDeadline(),
        env.retryPeriod(),
        env.reconcileBackoffMax(),
        env.resyncPeriod(),
        env.settleWindow(),
        OperatorConfig.subcommandsOf(spec),
        env.nodeAgents(),
        env.simulatedHardwareDir(),
        env.openShift());
  }

  /** ":8080" or "host:8080" → the port. */
  static int port(String flag, String address) {
    int colon = address.lastIndexOf(':');
    try {
      return Parse.port(true).apply(address.substring(colon + 1));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          flag
              + ": expected [host]:port such as :8080 or 127.0.0.1:8080, got "
              + Values.quote(address),
          e);
    }
  }

  static String bindHost(String address) {
    if (address == null || address.startsWith(":") || !address.contains(":")) {
      return "0.0.0.0";
    }
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** Pod name in a cluster (HOSTNAME), else host name plus pid. */
  static String identity() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "gpu-operator";
      }
      host = host + "-" + ProcessHandle.current().pid();
    }
    return host;
  }

  /**
   * The effective config for these arguments and environment (tests, and the simulator running the
   * operator's container in-process).
   */
  public static OperatorConfig configFor(Map<String, String> env, String... args) {
    OperatorCommand c = new OperatorCommand();
    new CommandLine(c).parseArgs(args);
    return c.overrides(OperatorConfig.fromEnv(env));
  }
}
