package io.gpuoperator.node.agent;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The environment of an agent hosted by {@code gpu-operator node-agents}, one convention for the
 * operator that renders it and the command that reads it: a variable only one agent is to see is
 * {@code <AGENT>__NAME} ({@code DEVICE_PLUGIN__MIG_STRATEGY} is {@code MIG_STRATEGY} for {@code
 * device-plugin}); the agent sees the process's variables without any hosted agent's own, plus its
 * own without the prefix.
 */
public final class AgentEnv {
  /** Between an agent's prefix and the variable's name. */
  public static final String SEPARATOR = "__";

  private AgentEnv() {}

  /** The prefix of an agent's own variables: {@code device-plugin} has {@code DEVICE_PLUGIN__}. */
  public static String prefix(String agent) {
    return agent.toUpperCase(Locale.ROOT).replace('-', '_') + SEPARATOR;
  }

  /**
   * What {@code agent} sees of {@code env}, where {@code agents} are every agent that may be
   * hosted: the variables of none of their prefixes, then its own with the prefix taken off (they
   * win over a shared variable of the same name).
   */
  public static Map<String, String> of(
      String agent, Map<String, String> env, Collection<String> agents) {
    Map<String, String> out = new HashMap<>();
    Map<String, String> own = new HashMap<>();
    String mine = prefix(agent);
    for (Map.Entry<String, String> e : env.entrySet()) {
      String k = e.getKey();
      if (k.startsWith(mine) && k.length() > mine.length()) {
        own.put(k.substring(mine.length()), e.getValue());
      } else if (agents.stream().noneMatch(a -> k.startsWith(prefix(a)))) {
        out.put(k, e.getValue());
      }
    }
    out.putAll(own);
    return out;
  }
}
