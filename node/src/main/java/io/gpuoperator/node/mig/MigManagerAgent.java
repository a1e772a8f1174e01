package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import io.gpuoperator.config.ConfigException;
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

  private synchronized void offer(Node n) {
    Map<String, String> labels = n.getMetadata().getLabels();
    String value = labels == null ? null : labels.get(MigLabels.CONFIG);
    String state = labels == null ? null : labels.get(MigLabels.STATE);
    if (value == null || value.isBlank()) {
      return;
    }
    if (!Objects.equals(value, handled) || state == null || state.isBlank()) {
      if (!Objects.equals(value, wanted)) {
        LOG.info("node {}: {}={} requested", nodeName, MigLabels.CONFIG, value);
      }
      wanted = value;
      retry = state == null || state.isBlank();
      notifyAll();
    }
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
  public synchronized void close() {
    stopped = true;
    notifyAll();
  }
}
