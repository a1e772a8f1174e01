package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.authentication.SelfSubjectReview;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import io.gpuoperator.operator.runtime.GpuOperator;
import io.gpuoperator.operator.runtime.OperatorClients;
import io.gpuoperator.operator.runtime.OperatorCommand;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@code gpu-operator operator} in-process for a simulated node's pod, as the chart's operator
 * Deployment runs it: configuration from the container's env and args (as {@code OperatorCommand}
 * reads them), identity the pod's name (its {@code HOSTNAME} in a real pod), and a client
 * authenticated as the pod's ServiceAccount with a token the kubelet requested for it (so the
 * chart's RBAC is all it gets). Simulated pods share this machine's network, so its health and
 * metrics servers listen on free ports of 127.0.0.1, published as the container's ports; the
 * kubelet's probes of {@code /healthz} and {@code /readyz} then decide its readiness. It runs until
 * the container is killed (its pod deleted), or exits 1 when it loses the lease while running, as
 * the real process does (JOSDK would otherwise keep reconciling); a bad variable or flag exits 2.
 * Logging stays the simulation's: the container's --zap-* flags are accepted and not applied, as
 * they would reconfigure the whole JVM (only a process's entry point applies them).
 */
public final class OperatorInProcessAgent implements InProcessAgent {
  private static final Logger LOG = LoggerFactory.getLogger(OperatorInProcessAgent.class);

  /** The flags that name listen addresses; the simulated container listens where it can. */
  private static final List<String> BIND_FLAGS =
      List.of("--metrics-bind-address", "--health-probe-bind-address");

  /**
   * One running operator container.
   *
   * @param user the user the API server sees for its client (from a SelfSubjectReview)
   * @param extra that user's extra attributes (a pod-bound token carries the pod's name)
   */
  public record Running(
      String namespace,
      String pod,
      String node,
      String user,
      Map<String, List<String>> extra,
      int healthPort,
      GpuOperator operator) {}

  private final Map<String, Running> running = new ConcurrentHashMap<>();

  /** The operator containers running now, by pod name. */
  public Map<String, Running> running() {
    return Map.copyOf(running);
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    var pod = ctx.container().pod();
    String name = pod.getMetadata().getName();
    String where = pod.getMetadata().getNamespace() + "/" + name + " on node " + ctx.nodeName();
    OperatorConfig declared;
    OperatorConfig config;
    try {
      String[] args = ctx.args().toArray(String[]::new);
      declared = OperatorCommand.configFor(ctx.env(), args);
      Map<String, String> env = new HashMap<>(ctx.env());
      env.put("METRICS_PORT", "0");
      env.put("HEALTH_PORT", "0");
      config =
          OperatorCommand.configFor(env, withoutBindFlags(ctx.args()))
              .withAgents(GpuOperatorCommand.commandLine().getSubcommands().keySet());
    } catch (ConfigException | IllegalArgumentException e) {
      LOG.warn("operator in pod {}: {}", where, e.getMessage());
      return 2;
    }
    Config clientConfig = ctx.serviceAccountConfig();
    clientConfig.setUserAgent(
        "gpu-operator/" + OperandImages.projectVersion() + " (simulated pod)");
    clientConfig.setMaxConcurrentRequests(OperatorClients.MAX_CONCURRENT_REQUESTS);
    clientConfig.setMaxConcurrentRequestsPerHost(OperatorClients.MAX_CONCURRENT_REQUESTS);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build()) {
      UserInfo user =
          client
              .authentication()
              .v1()
              .selfSubjectReviews()
              .create(new SelfSubjectReview())
              .getStatus()
              .getUserInfo();
      LOG.info("operator in pod {}: authenticated as {}", where, user.getUsername());
      try (GpuOperator operator =
          new GpuOperator(
              client,
              config,
              new OperandRegistryRenderer(),
              new NodeLabelRulesPlanner(),
              new GpuOperator.Options(name, "127.0.0.1", "127.0.0.1", false, 8))) {
        operator.start();
        ctx.publishPort(declared.metricsPort(), operator.metricsPort());
        ctx.publishPort(declared.healthPort(), operator.healthPort());
        running.put(
            name,
            new Running(
                pod.getMetadata().getNamespace(),
                name,
                ctx.nodeName(),
                user.getUsername(),
                user.getExtra() == null ? Map.of() : Map.copyOf(user.getExtra()),
                operator.healthPort(),
                operator));
        try {
          // Until the container is killed (interrupt) or the lease is lost while leading.
          while (true) {
            try {
              operator.leaseLost().get(1, TimeUnit.DAYS);
              LOG.warn("operator in pod {}: lost the lease, exiting", where);
              return 1;
            } catch (java.util.concurrent.TimeoutException e) {
              // keep waiting
            }
          }
        } finally {
          running.remove(name);
        }
      }
    }
  }

  /** The args without the listen-address flags (both {@code --flag=v} and {@code --flag v}). */
  static String[] withoutBindFlags(List<String> args) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String flag = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (BIND_FLAGS.contains(flag)) {
        if (!a.contains("=")) {
          i++; // its value
        }
        continue;
      }
      out.add(a);
    }
    return out.toArray(String[]::new);
  }
}
