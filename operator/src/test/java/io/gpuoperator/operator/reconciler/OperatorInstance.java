package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.runtime.GpuOperator;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/** An in-process operator with its own client, whose requests carry a distinct user agent. */
final class OperatorInstance implements AutoCloseable {
  final String userAgent;
  final KubernetesClient client;
  final GpuOperator operator;

  private OperatorInstance(String userAgent, KubernetesClient client, GpuOperator operator) {
    this.userAgent = userAgent;
    this.client = client;
    this.operator = operator;
  }

  /**
   * An operator to start on {@code cp} in {@code namespace}; {@code identity} is its lease holder
   * and the suffix of its user agent. By default it renders the operand registry, plans node labels
   * by the rules, elects a leader and runs no agent of this project's own.
   */
  static Builder on(ControlPlane cp, String namespace, String identity) {
    return new Builder(cp, namespace, identity);
  }

  /** What differs between the operators the ITs start; {@link #start()} starts one. */
  static final class Builder {
    private final ControlPlane cp;
    private final String namespace;
    private final String identity;
    private PolicyRenderer renderer = new OperandRegistryRenderer();
    private final Map<String, String> env = new HashMap<>();
    private Consumer<Config> clientConfig = c -> {};
    private Set<String> agents = Set.of();

    private Builder(ControlPlane cp, String namespace, String identity) {
      this.cp = cp;
      this.namespace = namespace;
      this.identity = identity;
    }

    Builder renderer(PolicyRenderer renderer) {
      this.renderer = renderer;
      return this;
    }

    /** Adds to the operator's environment (its {@link OperatorConfig}). */
    Builder env(Map<String, String> more) {
      env.putAll(more);
      return this;
    }

    /** The only operator of its test: it leads at once, without waiting for a lease. */
    Builder withoutLeaderElection() {
      return env(Map.of("LEADER_ELECT", "false"));
    }

    /** Adjusts the client's configuration before the client is built. */
    Builder clientConfig(Consumer<Config> clientConfig) {
      this.clientConfig = clientConfig;
      return this;
    }

    /** The binary's agent subcommands: operands with an agent here render for this image. */
    Builder agents(Set<String> agents) {
      this.agents = agents;
      return this;
    }

    OperatorInstance start() throws IOException {
      return OperatorInstance.start(
          cp,
          namespace,
          identity,
          renderer,
          new NodeLabelRulesPlanner(),
          env,
          clientConfig,
          agents);
    }
  }

  /**
   * Starts an operator (metrics and health on free loopback ports) of a binary with these
   * subcommands ({@code agents}): what {@link Builder#start()} runs, with every setting spelled
   * out.
   */
  static OperatorInstance start(
      ControlPlane cp,
      String namespace,
      String identity,
      PolicyRenderer renderer,
      NodeLabelPlanner planner,
      Map<String, String> extraEnv,
      Consumer<Config> clientConfig,
      Set<String> agents)
      throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(cp.kubeconfig()));
    String agent = "gpu-operator-it/" + identity;
    config.setUserAgent(agent);
    config.setMaxConcurrentRequests(128);
    config.setMaxConcurrentRequestsPerHost(128);
    clientConfig.accept(config);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
    Map<String, String> env = new HashMap<>();
    env.put("OPERATOR_NAMESPACE", namespace);
    env.put("METRICS_PORT", "0");
    env.put("HEALTH_PORT", "0");
    env.putAll(extraEnv);
    GpuOperator operator =
        new GpuOperator(
            client,
            OperatorConfig.fromEnv(env).withAgents(agents),
            renderer,
            planner,
            GpuOperator.Options.on("127.0.0.1", identity, false, 16));
    operator.start();
    return new OperatorInstance(agent, client, operator);
  }

  @Override
  public void close() {
    try {
      operator.close();
    } finally {
      client.close();
    }
  }
}
