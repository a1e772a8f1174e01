package io.gpuoperator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.config.zap.ZapOptions;
import io.gpuoperator.node.agent.AgentCommand;
import io.gpuoperator.node.agent.AgentEnv;
import io.gpuoperator.node.agent.AgentSelector;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.agent.NodeAgentSupervisor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpu-operator node-agents}: several node agents in one JVM, so that a GPU node pays for one
 * runtime (heap, JIT, class metadata) instead of one per agent. Each agent runs its own subcommand
 * on its own thread ({@link NodeAgentSupervisor}): restarted on its own when it ends, with the
 * kubelet's back-off, and, with {@code --node-selector}, run only while its node's labels admit it
 * (the deploy label its own DaemonSet's nodeSelector would have checked).
 *
 * <p>Each agent reads the environment it would have in its own container: the process's, without
 * any agent's own variables ({@code <AGENT>__NAME}, e.g. {@code DEVICE_PLUGIN__MIG_STRATEGY}), plus
 * its own with the prefix taken off. The operator renders the variables two agents disagree on so.
 * The {@code --zap-*} flags set the process's logging, every agent's lines included (an agent's own
 * {@code --zap-*} is refused).
 */
@Command(
    name = "node-agents",
    header = "Runs several node agents in one JVM, each restarted on its own when it ends.",
    description = {
      "Each --run is one agent: its subcommand and flags, separated by spaces, e.g."
          + " --run 'feature-discovery --mig-strategy=single' --run 'device-plugin'. Agents read"
          + " the process's environment (NODE_NAME, ...) as they do when run alone; a variable"
          + " named <AGENT>__NAME (e.g. DEVICE_PLUGIN__MIG_STRATEGY) is NAME for that agent only."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "143:stopped by SIGTERM after a clean shutdown (130 by SIGINT: the JVM ends with 128 + the signal)",
      "1:the node cannot be read (with --node-selector)",
      "2:bad input: a --run or --node-selector that does not parse"
    })
public class NodeAgentsCommand extends AgentCommand {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgentsCommand.class);

  /** The agents that may share a JVM: long-running node agents of this binary. */
  public static final Set<String> AGENTS =
      Set.of(
          "feature-discovery",
          "device-plugin",
          "dra-plugin",
          "exporter",
          "mig-manager",
          "pci-discovery");

  @Option(
      names = "--run",
      required = true,
      paramLabel = "'AGENT [FLAGS]'",
      description =
          "An agent to run and its flags: feature-discovery, device-plugin, dra-plugin,"
              + " exporter, mig-manager or pci-discovery.")
  List<String> runs;

  @Option(
      names = "--node-selector",
      paramLabel = "AGENT=SELECTOR",
      description =
          "Run AGENT only while this node's labels match SELECTOR (key=value and key!=value,"
              + " comma-separated, e.g. device-plugin=nvidia.com/gpu.deploy.device-plugin=true);"
              + " needs NODE_NAME and the API server. The node is watched: the agent stops when its"
              + " labels stop matching and starts again when they match.")
  Map<String, String> selectors = new LinkedHashMap<>();

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Kubeconfig for watching the node (with --node-selector). Without it: in-cluster, then"
              + " $KUBECONFIG, then ~/.kube/config.")
  java.nio.file.Path kubeconfig;

  @Option(
      names = "--restart-delay-seconds",
      paramLabel = "N",
      description = "First restart delay of an agent that ended (doubles up to 5 minutes; 10).")
  long restartDelaySeconds = 10;

  /** The environment an agent sees ({@link AgentEnv}: its own prefixed variables, no other's). */
  public static Map<String, String> agentEnv(String agent, Map<String, String> env) {
    return AgentEnv.of(agent, env, AGENTS);
  }

  /**
   * Parses the {@code --run} lines into argument arrays.
   *
   * @throws ConfigException naming a line that is not an agent or does not parse
   */
  static List<String[]> parseRuns(List<String> runs) {
    List<String[]> agents = new ArrayList<>();
    for (String run : runs) {
      String[] args = run.trim().split("\\s+");
      if (!AGENTS.contains(args[0])) {
        throw new ConfigException(
            "--run '"
                + run
                + "': '"
                + args[0]
                + "' is not a node agent that can share a JVM (one of "
                + String.join(", ", AGENTS.stream().sorted().toList())
                + ")");
      }
      CommandLine.ParseResult parsed;
      try {
        parsed = GpuOperatorCommand.commandLine().parseArgs(args);
      } catch (CommandLine.ParameterException e) {
        throw new ConfigException("--run '" + run + "': " + e.getMessage(), e);
      }
      // One JVM, one logger: an agent's own logging flags would have no effect.
      for (CommandLine.ParseResult r = parsed; r != null; r = r.subcommand()) {
        for (CommandLine.Model.OptionSpec o : r.matchedOptions()) {
          if (ZapOptions.NAMES.contains(o.longestName())) {
            throw new ConfigException(
                "--run '"
                    + run
                    + "': "
                    + o.longestName()
                    + " sets the logging of the whole process: give it to node-agents itself");
          }
        }
      }
      agents.add(args);
    }
    return agents;
  }

  /**
   * The agents as parsed and checked: each agent's argument line (subcommand first), its node
   * selector (or none) and the first restart delay.
   */
  public record Parsed(
      List<String[]> agents, Map<String, AgentSelector> selectors, Duration restartDelay) {}

  /**
   * Parses {@code node-agents} arguments (without the subcommand) as this command does, for runners
   * that host the agents themselves (the simulator's kubelet).
   *
   * @throws ConfigException naming the bad --run or --node-selector
   */
  public static Parsed parse(List<String> args) {
    NodeAgentsCommand c = new NodeAgentsCommand();
    try {
      new CommandLine(c).parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new ConfigException("node-agents: " + e.getMessage(), e);
    }
    return c.parsed();
  }

  private Parsed parsed() {
    if (restartDelaySeconds < 0) {
      throw new ConfigException("--restart-delay-seconds must be >= 0, got " + restartDelaySeconds);
    }
    List<String[]> agents = parseRuns(runs);
    Map<String, AgentSelector> parsed = new HashMap<>();
    for (Map.Entry<String, String> e : selectors.entrySet()) {
      if (agents.stream().noneMatch(a -> a[0].equals(e.getKey()))) {
        throw new ConfigException(
            "--node-selector " + e.getKey() + "=...: no --run runs '" + e.getKey() + "'");
      }
      try {
        parsed.put(e.getKey(), AgentSelector.parse(e.getValue()));
      } catch (ConfigException x) {
        throw new ConfigException("--node-selector " + e.getKey() + ": " + x.getMessage(), x);
      }
    }
    return new Parsed(agents, parsed, Duration.ofSeconds(restartDelaySeconds));
  }

  @Override
  public Integer call() throws Exception {
    Parsed p = parsed();
    List<String[]> agents = p.agents();
    Map<String, AgentSelector> parsed = p.selectors();
    List<NodeAgentSupervisor.Hosted> hosted = new ArrayList<>();
    for (String[] args : agents) {
      Map<String, String> agentEnv = agentEnv(args[0], env);
      hosted.add(
          new NodeAgentSupervisor.Hosted(
              args[0],
              parsed.get(args[0]),
              () -> GpuOperatorCommand.commandLine(agentEnv).execute(args)));
    }
    String node = null;
    KubernetesClient client = null;
    if (!parsed.isEmpty()) {
      Settings s = Settings.ofEnv(env);
      node = NodeAgentOptions.nodeName(s);
      if (node == null) {
        throw new ConfigException(
            "--node-selector needs this node's name: NODE_NAME is not set (the downward API's"
                + " spec.nodeName)");
      }
      if (kubeconfig == null) {
        client = NodeAgentOptions.client(s, "node-agents");
      } else {
        var config = io.gpuoperator.config.cli.Kubeconfigs.load(kubeconfig, "--kubeconfig");
        config.setUserAgent("gpu-operator/node-agents");
        client =
            new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build();
      }
    }
    NodeAgentSupervisor supervisor =
        new NodeAgentSupervisor(
            node, client, hosted, NodeAgentSupervisor.Backoff.kubelet(p.restartDelay()));
    Runtime.getRuntime().addShutdownHook(new Thread(supervisor::close, "node-agents-stop"));
    supervisor.start();
    LOG.info("node-agents: running {}", agents.stream().map(a -> a[0]).toList());
    try {
      // Until SIGTERM: the JVM's shutdown runs the agents' own hooks.
      new CountDownLatch(1).await();
      return 0;
    } finally {
      // Stopped from within (a test, an embedding): no agent is restarted any more.
      supervisor.close();
      if (client != null) {
        client.close();
      }
    }
  }
}
