package io.gpuoperator.node.agent;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the agents of {@code gpu-operator node-agents} in one JVM: each on its own thread, restarted
 * on its own when it ends (the kubelet's back-off), and, where it has an {@link AgentSelector},
 * only while its node's labels admit it. That keeps the per-node control surface of separate
 * DaemonSets: {@code nvidia.com/gpu.deploy.<operand>=false} (or the MIG manager's {@code
 * paused-for-mig-change}) stops that one agent on that node, {@code true} starts it again. The Node
 * is watched; a dropped watch is reopened. Each agent's state is published in {@link HostedAgents}
 * for the MIG manager's pause.
 *
 * <p>An agent is stopped by interrupting its thread (every agent blocks interruptibly until it is
 * stopped) and is given {@link #STOP_GRACE} to end.
 */
public final class NodeAgentSupervisor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgentSupervisor.class);

  /** How long a stopped agent has to end after its interrupt. */
  static final Duration STOP_GRACE = Duration.ofSeconds(30);

  /** What one hosted agent runs: its whole life, until it ends or is interrupted. */
  @FunctionalInterface
  public interface Body {
    /** Runs the agent; returns its exit code. */
    int run() throws Exception;
  }

  /** One hosted agent: its name (the subcommand), when it runs, and what it runs. */
  public record Hosted(String name, AgentSelector selector, Body body) {
    public Hosted {
      Objects.requireNonNull(name, "name");
      selector = selector == null ? AgentSelector.ALWAYS : selector;
      Objects.requireNonNull(body, "body");
    }
  }

  /**
   * The kubelet's crash-loop back-off: the first restart after {@code base}, doubling to {@code
   * max}; a run longer than {@code reset} starts over.
   */
  public record Backoff(Duration base, Duration max, Duration reset) {
    /** The kubelet's: 10 s doubling to 5 minutes, reset after 10 minutes of running. */
    public static Backoff kubelet(Duration base) {
      return new Backoff(base, Duration.ofMinutes(5), Duration.ofMinutes(10));
    }

    /** The delay before the next start, after the previous delay (null at first) and a run. */
    public Duration next(Duration previous, Duration ran) {
      if (previous == null || ran.compareTo(reset) >= 0) {
        return base;
      }
      Duration d = previous.multipliedBy(2);
      return d.compareTo(max) > 0 ? max : d;
    }
  }

  private final String node;
  private final KubernetesClient client;
  private final Backoff backoff;
  private final List<Slot> slots = new ArrayList<>();
  private volatile Map<String, String> labels;
  private volatile boolean closed;
  private Watch watch;

  /**
   * @param node this node's name (where selectors need it; may be null when none has one)
   * @param client reads and watches the Node; null when no agent has a selector
   */
  public NodeAgentSupervisor(
      String node, KubernetesClient client, List<Hosted> agents, Backoff backoff) {
    this.node = node;
    this.client = client;
    this.backoff = backoff;
    boolean selective = agents.stream().anyMatch(a -> !a.selector().requirements().isEmpty());
    if (selective && (client == null || node == null)) {
      throw new IllegalArgumentException(
          "agents with node selectors need the node's name (NODE_NAME) and the API server");
    }
    for (Hosted a : agents) {
      slots.add(
          new Slot(a, HostedAgents.register(node == null ? "" : node, a.name(), a.selector())));
    }
    labels = selective ? null : Map.of();
  }

  /** Starts watching the node (where needed) and every agent's thread. */
  public void start() {
    if (labels == null) {
      Node n = client.nodes().withName(node).get();
      if (n == null) {
        throw new IllegalStateException("node " + node + " not found");
      }
      labels(n);
      watch();
    }
    for (Slot s : slots) {
      Thread t = new Thread(s::supervise, "agent-" + s.agent.name());
      t.setDaemon(true);
      s.manager = t;
      t.start();
    }
  }

  private void watch() {
    watch =
        client
            .nodes()
            .withName(node)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Node n) {
                    if (action != Action.DELETED && action != Action.ERROR) {
                      labels(n);
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    if (!closed) {
                      LOG.warn(
                          "node {}: label watch closed ({}); reopening", node, cause.getMessage());
                      Node n = client.nodes().withName(node).get();
                      if (n != null) {
                        labels(n);
                      }
                      watch();
                    }
                  }
                });
  }

  private void labels(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    labels = l == null ? Map.of() : Map.copyOf(l);
    for (Slot s : slots) {
      synchronized (s) {
        s.notifyAll();
      }
    }
  }

  /** Whether an agent's labels admit it now. */
  private boolean admitted(Slot s) {
    Map<String, String> l = labels;
    return l != null && s.agent.selector().matches(l);
  }

  /** Stops every agent and the watch. */
  @Override
  public void close() {
    closed = true;
    if (watch != null) {
      watch.close();
    }
    for (Slot s : slots) {
      if (s.manager != null) {
        s.manager.interrupt();
      }
    }
    for (Slot s : slots) {
      try {
        if (s.manager != null) {
          s.manager.join(STOP_GRACE.toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      HostedAgents.unregister(node == null ? "" : node, s.entry);
    }
  }

  /** One agent's supervision state. */
  private final class Slot {
    final Hosted agent;
    final HostedAgents.Entry entry;
    Thread manager;
    Duration delay;

    Slot(Hosted agent, HostedAgents.Entry entry) {
      this.agent = agent;
      this.entry = entry;
    }

    /** Until closed: wait to be admitted, run, stop when no longer admitted, restart on end. */
    void supervise() {
      try {
        while (!closed) {
          synchronized (this) {
            while (!closed && !admitted(this)) {
              wait(1000);
            }
          }
          if (closed) {
            return;
          }
          long started = System.nanoTime();
          int[] code = {0};
          Thread worker =
              new Thread(
                  () -> {
                    try {
                      code[0] = agent.body().run();
                    } catch (InterruptedException e) {
                      code[0] = 0;
                    } catch (Exception | Error e) {
                      LOG.error("agent {} failed: {}", agent.name(), e.toString(), e);
                      code[0] = 1;
                    }
                  },
                  agent.name());
          worker.setDaemon(true);
          entry.stopped(false);
          LOG.info("node {}: agent {} starting", node, agent.name());
          worker.start();
          boolean unadmitted = false;
          try {
            synchronized (this) {
              while (worker.isAlive() && !closed && admitted(this)) {
                wait(500);
              }
              unadmitted = worker.isAlive() && !closed;
            }
          } finally {
            if (worker.isAlive()) {
              LOG.info(
                  "node {}: stopping agent {} ({})",
                  node,
                  agent.name(),
                  unadmitted
                      ? "the node's labels no longer match " + agent.selector()
                      : "shutting down");
              worker.interrupt();
              worker.join(STOP_GRACE.toMillis());
            }
          }
          entry.stopped(!worker.isAlive());
          if (closed || unadmitted) {
            continue; // stopped on purpose: no back-off, start again once admitted
          }
          Duration next = nextDelay(Duration.ofNanos(System.nanoTime() - started));
          LOG.warn(
              "node {}: agent {} ended with exit code {}; restarting it in {} s",
              node,
              agent.name(),
              code[0],
              next.toSeconds());
          Thread.sleep(next.toMillis());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        entry.stopped(true);
      }
    }

    private Duration nextDelay(Duration ran) {
      delay = backoff.next(delay, ran);
      return delay;
    }
  }
}
