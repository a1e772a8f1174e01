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

  /** Starts an operator (metrics and health on free loopback ports). */
  static OperatorInstance start(
      ControlPlane cp,
      String namespace,
      String identity,
      PolicyRenderer renderer,
      NodeLabelPlanner planner,
      Map<String, String> extraEnv)
      throws IOException {
    return start(cp, namespace, identity, renderer, planner, extraEnv, c -> {});
  }

  /** Starts an operator whose client configuration the caller adjusts first. */
  static OperatorInstance start(
      ControlPlane cp,
      String namespace,
      String identity,
      PolicyRenderer renderer,
      NodeLabelPlanner planner,
      Map<String, String> extraEnv,
      Consumer<Config> clientConfig)
      throws IOException {
    return start(cp, namespace, identity, renderer, planner, extraEnv, clientConfig, Set.of());
  }

  /**
   * Starts an operator of a binary with these subcommands (agents): operands this project has an
   * agent for, such as the DRA driver, render for this project's image.
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
