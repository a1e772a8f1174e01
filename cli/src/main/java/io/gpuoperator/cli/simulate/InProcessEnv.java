package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.sim.kubelet.AgentContext;
import java.util.HashMap;
import java.util.Map;

/**
 * The environment an in-process agent starts from: its container's, with the node's name in {@code
 * NODE_NAME}, as the downward API gives it to the agents' DaemonSets.
 */
final class InProcessEnv {
  private InProcessEnv() {}

  /** A copy the agent may add its own variables to (paths through the container's mounts). */
  static Map<String, String> of(AgentContext ctx) {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put(NodeAgentOptions.NODE_NAME.envName(), ctx.nodeName());
    return env;
  }
}
