package io.gpuoperator.cli.simulate;

import io.gpuoperator.cli.NodeAgentsCommand;
import io.gpuoperator.node.agent.HostedAgents;
import io.gpuoperator.node.agent.NodeAgentSupervisor;
import io.gpuoperator.sim.kubelet.AgentContext;
import io.gpuoperator.sim.kubelet.InProcessAgent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code gpu-operator node-agents} in-process for a simulated node's pod: its arguments parsed
 * and checked by the real command, each {@code --run} through the in-process agent registered for
 * that subcommand (with the environment the real command would give it), under the real supervisor,
 * which watches the node's labels and stops and starts each agent as its {@code --node-selector}
 * says. Ready once every agent the node's labels admit has said it is ready.
 */
public final class NodeAgentsInProcessAgent implements InProcessAgent {
  private final Map<String, InProcessAgent> agents;

  /**
   * @param agents the in-process agents by subcommand
   */
  public NodeAgentsInProcessAgent(Map<String, InProcessAgent> agents) {
    this.agents = Map.copyOf(agents);
  }

  @Override
  public int run(AgentContext ctx) throws Exception {
    NodeAgentsCommand.Parsed parsed = NodeAgentsCommand.parse(ctx.args());
    Set<String> ready = ConcurrentHashMap.newKeySet();
    List<NodeAgentSupervisor.Hosted> hosted = new ArrayList<>();
    for (String[] line : parsed.agents()) {
      String name = line[0];
      InProcessAgent agent = agents.get(name);
      if (agent == null) {
        throw new IllegalArgumentException("node-agents: no in-process agent for " + name);
      }
      List<String> args = Arrays.asList(line).subList(1, line.length);
      Map<String, String> env = NodeAgentsCommand.agentEnv(name, ctx.env());
      hosted.add(
          new NodeAgentSupervisor.Hosted(
              name,
              parsed.selectors().get(name),
              () -> agent.run(ctx.hosted(args, env, () -> ready.add(name)))));
    }
    try (NodeAgentSupervisor supervisor =
        new NodeAgentSupervisor(
            ctx.nodeName(),
            ctx.client(),
            hosted,
            NodeAgentSupervisor.Backoff.kubelet(parsed.restartDelay()))) {
      supervisor.start();
      // Ready once each agent is either ready or not running (its labels keep it stopped).
      while (!HostedAgents.on(ctx.nodeName()).stream()
          .allMatch(e -> e.stopped() || ready.contains(e.name()))) {
        Thread.sleep(100);
      }
      ctx.markReady();
      Thread.sleep(Long.MAX_VALUE); // until the container is killed (interrupt)
      return 0;
    }
  }
}
