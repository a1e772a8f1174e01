package io.gpuoperator.node.agent;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What {@code gpu-operator node-agents} hosts on each node, for the agents beside it in the same
 * JVM: which agents it runs, the node labels each needs ({@link AgentSelector}) and whether each is
 * stopped now. The MIG manager pauses GPU clients by their deploy labels and then waits for their
 * pods to go; a client hosted here has no pod of its own, so it waits here until the supervisor has
 * really stopped every hosted agent the labels no longer admit ({@link #awaitStopped}). Keyed by
 * node, since the simulator runs many nodes in one JVM.
 */
public final class HostedAgents {
  /** One hosted agent's state, written by its supervisor. */
  public static final class Entry {
    private final String name;
    private final AgentSelector selector;
    private volatile boolean stopped = true;

    Entry(String name, AgentSelector selector) {
      this.name = name;
      this.selector = selector;
    }

    public String name() {
      return name;
    }

    public AgentSelector selector() {
      return selector;
    }

    /** Whether the agent is not running (never started, ended, or stopped by its labels). */
    public boolean stopped() {
      return stopped;
    }

    void stopped(boolean value) {
      stopped = value;
    }
  }

  private static final Map<String, Map<String, Entry>> BY_NODE = new ConcurrentHashMap<>();

  private HostedAgents() {}

  /** Registers a hosted agent of a node (stopped until its supervisor starts it). */
  static Entry register(String node, String agent, AgentSelector selector) {
    Entry e = new Entry(agent, selector);
    BY_NODE.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).put(agent, e);
    return e;
  }

  /** Forgets a hosted agent (its supervisor closed). */
  static void unregister(String node, Entry entry) {
    Map<String, Entry> m = BY_NODE.get(node);
    if (m != null) {
      m.remove(entry.name(), entry);
    }
  }

  /** The agents hosted on a node in this JVM (empty where node-agents does not run). */
  public static List<Entry> on(String node) {
    Map<String, Entry> m = BY_NODE.get(node);
    return m == null ? List.of() : List.copyOf(m.values());
  }

  /** The hosted agents of a node that these labels do not admit and that still run. */
  public static List<String> stillRunning(String node, Map<String, String> labels) {
    return on(node).stream()
        .filter(e -> !e.selector().matches(labels) && !e.stopped())
        .map(Entry::name)
        .sorted()
        .toList();
  }

  /**
   * Waits until every hosted agent of {@code node} that the node's current labels (read again each
   * time from {@code labels}) do not admit has stopped; returns false when {@code timeout} passes
   * first. Returns at once where nothing is hosted.
   */
  public static boolean awaitStopped(
      String node, Supplier<Map<String, String>> labels, Duration timeout)
      throws InterruptedException {
    if (on(node).isEmpty()) {
      return true;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!stillRunning(node, labels.get()).isEmpty()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(200);
    }
    return true;
  }
}
