package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.agent.AgentLane;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MIG manager's loop: watches its own Node and applies the configuration named by {@code
 * nvidia.com/mig.config} whenever that value changes (and once at start, which also re-applies the
 * layout after a reboot, since MIG geometry does not survive one). One change at a time; a newer
 * value waiting while one is applied replaces older waiting ones. Removing {@code
 * nvidia.com/mig.config.state} asks for the current value to be applied again.
 */
public final class MigManagerAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MigManagerAgent.class);

  private final NodeWatch nodes;
  private final String nodeName;
  private final Supplier<MigConfigFile> config;
  private final MigReconfigurer reconfigurer;
  private String wanted;
  private String handled;
  private boolean retry;
  private boolean stopped;
  private AutoCloseable watch;
  // start()'s lane, and the thread applying a change on it (interrupted by close()).
  private AgentLane lane;
  private Thread applying;

  /** {@code config} is read at each change (the ConfigMap may have changed). */
  public MigManagerAgent(
      KubernetesClient client,
      String nodeName,
      Supplier<MigConfigFile> config,
      MigReconfigurer reconfigurer) {
    this(NodeWatch.informer(client), nodeName, config, reconfigurer);
  }

  /** Hears of the node's label from {@code nodes} (the simulator's shared watch). */
  public MigManagerAgent(
      NodeWatch nodes,
      String nodeName,
      Supplier<MigConfigFile> config,
      MigReconfigurer reconfigurer) {
    this.nodes = nodes;
    this.nodeName = nodeName;
    this.config = config;
    this.reconfigurer = reconfigurer;
  }

  /** Watches the node and applies changes until {@link #close()} or an interrupt. */
  public void run() throws InterruptedException {
    // An informer retries when its first list fails (a busy API server's timeout).
    watch = nodes.watch(nodeName, this::offer);
    LOG.info("node {}: watching {}", nodeName, MigLabels.CONFIG);
    try {
      while (true) {
        String name = next();
        if (name == null) {
          return;
        }
        apply(name);
      }
    } finally {
      try {
        watch.close();
      } catch (Exception e) {
        LOG.warn("node {}: closing the Node watch: {}", nodeName, e.toString());
      }
    }
  }

  /**
   * What {@link #run} does without a thread waiting for changes (the simulator runs hundreds of MIG
   * managers in one JVM): each change is applied on an {@link AgentLane} of the JVM's shared agent
   * threads, one at a time. {@link #close()} stops the watch and interrupts a change being applied,
   * as an interrupt of {@link #run} does.
   */
  public void start(String laneName) {
    AgentLane l = new AgentLane(laneName);
    synchronized (this) {
      lane = l;
    }
    // Not under the lock: the watch may deliver the Node from another thread before it returns.
    AutoCloseable w =
        nodes.watch(
            nodeName,
            n -> {
              if (offer(n)) {
                l.execute(this::applyPending);
              }
            });
    boolean closed;
    synchronized (this) {
      watch = w;
      closed = stopped;
    }
    if (closed) {
      closeQuietly(w);
      return;
    }
    LOG.info("node {}: watching {}", nodeName, MigLabels.CONFIG);
  }

  private void closeQuietly(AutoCloseable w) {
    try {
      w.close();
    } catch (Exception e) {
      LOG.warn("node {}: closing the Node watch: {}", nodeName, e.toString());
    }
  }

  private void applyPending() {
    String name;
    synchronized (this) {
      if (stopped || wanted == null || (wanted.equals(handled) && !retry)) {
        return;
      }
      handled = wanted;
      retry = false;
      name = handled;
      applying = Thread.currentThread();
    }
    try {
      apply(name);
    } catch (InterruptedException e) {
      LOG.info("node {}: stopped while applying {}", nodeName, name);
    } finally {
      synchronized (this) {
        applying = null;
        Thread.interrupted(); // close()'s interrupt must not reach the pool's next task
      }
    }
  }

  private void apply(String name) throws InterruptedException {
    MigConfigFile file;
    try {
      file = config.get();
    } catch (ConfigException e) {
      reconfigurer.fail(
          "MIG config " + name + ": the MIG config file is invalid: " + e.getMessage());
      return;
    }
    reconfigurer.reconfigure(name, file);
  }

  /** Records what the Node asks for; true when there is something (new) to apply. */
  private synchronized boolean offer(Node n) {
    Map<String, String> labels = n.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(MigLabels.CONFIG);
    String state = labels == null ? null : labels.get(MigLabels.STATE);
    if (value == null || value.isBlank()) {
      return false;
    }
    if (!Objects.equals(value, handled) || state == null || state.isBlank()) {
      if (!Objects.equals(value, wanted)) {
        LOG.info("node {}: {}={} requested", nodeName, MigLabels.CONFIG, value);
      }
      wanted = value;
      retry = state == null || state.isBlank();
      notifyAll();
      return true;
    }
    return false;
  }

  private synchronized String next() throws InterruptedException {
    while (!stopped && (wanted == null || (wanted.equals(handled) && !retry))) {
      wait();
    }
    if (stopped) {
      return null;
    }
    handled = wanted;
    retry = false;
    return handled;
  }

  @Override
  public void close() {
    AutoCloseable startedWatch = null;
    synchronized (this) {
      stopped = true;
      notifyAll();
      if (lane != null) {
        lane.close();
        startedWatch = watch;
        if (applying != null) {
          applying.interrupt();
        }
      }
    }
    if (startedWatch != null) {
      closeQuietly(startedWatch);
    }
  }
}
