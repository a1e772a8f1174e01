package io.gpuoperator.node.deviceplugin;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.NodeWatch;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.AgentLane;
import io.gpuoperator.node.config.DevicePluginConfig;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.fault.GpuFaultReporter;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.XidPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the device plugin with its configuration kept current: resolves the settings (flags and env
 * over the config file), starts the {@link DevicePluginAgent}, and reloads it when the config file
 * changes or, with a config directory, when the node's {@code nvidia.com/device-plugin.config}
 * label names another config. A config that fails to load is reported and the running one kept.
 */
public final class DevicePluginRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginRunner.class);

  private final GpuBackend backend;
  private final Settings settings;
  private final ConfigSource source;
  private final KubernetesClient client;
  private final String nodeName;
  private final Path kubeletSocket;
  private final Path migMinorsFile;
  private final Duration recovery;
  private final Duration supervise;
  private final AgentLane fileWatch = new AgentLane("device-plugin-config");
  private DevicePluginAgent agent;
  private NodeWatch nodes;
  private AutoCloseable nodeWatch;
  private volatile String label;
  private volatile Path activeFile;
  private volatile FileTime activeModified;
  private Path cdiSpecDir;

  /**
   * @param settings the command's flags and environment (the config file is added per load)
   * @param client API client for the node label, or null (then no label switching)
   */
  public DevicePluginRunner(
      GpuBackend backend,
      Settings settings,
      ConfigSource source,
      KubernetesClient client,
      String nodeName,
      Path kubeletSocket,
      Path migMinorsFile,
      Duration recovery,
      Duration supervise) {
    this.backend = backend;
    this.settings = settings;
    this.source = source;
    this.client = client;
    this.nodeName = nodeName;
    this.kubeletSocket = kubeletSocket;
    this.migMinorsFile = migMinorsFile;
    this.recovery = recovery;
    this.supervise = supervise;
  }

  /**
   * The settings a config source gives before anything runs (for the command's decisions made
   * before the GPUs are opened, such as {@code failOnInitError}).
   */
  public static DevicePluginSettings initialSettings(
      ConfigSource source, Settings settings, KubernetesClient client, String nodeName) {
    return new DevicePluginRunner(
            null,
            settings,
            source,
            client,
            nodeName,
            Path.of("."),
            null,
            Duration.ZERO,
            Duration.ZERO)
        .currentSettingsAndClose();
  }

  private DevicePluginSettings currentSettingsAndClose() {
    try {
      return currentSettings();
    } finally {
      fileWatch.close();
    }
  }

  /** Resolves the settings the config source gives now (the first load: errors propagate). */
  public DevicePluginSettings currentSettings() {
    if (source.labelled() && (client != null || nodes != null) && nodeName != null) {
      Node node = nodes != null ? nodes.current(nodeName) : client.nodes().withName(nodeName).get();
      label =
          node == null || node.getMetadata().getLabels() == null
              ? null
              : node.getMetadata().getLabels().get(PluginNames.CONFIG_LABEL);
    }
    Path file = source.select(label);
    activeFile = file;
    activeModified = modified(file);
    Document doc = file == null ? null : DevicePluginConfigs.read(file);
    DevicePluginConfig config = doc == null ? null : DevicePluginConfigs.parse(doc);
    if (file != null) {
      LOG.info("config file {} (label {}={})", file, PluginNames.CONFIG_LABEL, label);
    }
    return DevicePluginSettings.resolve(settings.withFile(doc), config);
  }

  /**
   * Where the config label is heard from (default: an informer on the node through the client);
   * call before {@link #start()}.
   */
  public synchronized DevicePluginRunner withNodeWatch(NodeWatch watch) {
    this.nodes = watch;
    return this;
  }

  /** Where the plugin writes its CDI spec when a CDI strategy is used (null: nowhere). */
  public synchronized DevicePluginRunner withCdiSpecDir(Path dir) {
    this.cdiSpecDir = dir;
    return this;
  }

  /** Starts the agent and the config watches. */
  public synchronized DevicePluginRunner start() throws IOException {
    GpuFaultReporter faults =
        GpuFaultReporter.fromSettings(backend, settings, client, nodeName, recovery);
    agent =
        new DevicePluginAgent(
                backend,
                currentSettings(),
                kubeletSocket,
                migMinorsFile,
                XidPolicy.from(settings),
                recovery,
                supervise)
            .withCdiSpecDir(cdiSpecDir)
            .withFaultReporter(faults)
            .start();
    long period = Math.max(200, supervise.toMillis() * 2);
    // A file's time checked, batched with every plugin of the JVM; a change reloads on the lane.
    fileWatch.scheduleBatched(this::checkFileQuietly, period, TimeUnit.MILLISECONDS);
    boolean labelled = source.labelled() && (client != null || nodes != null) && nodeName != null;
    if (labelled || faults != null) {
      // Not waited for, and retried when its first list fails: the plugin serves its devices
      // meanwhile, and a label change or a GPU reset request is acted on once the watch is up.
      // One watch of the node for both.
      nodeWatch =
          (nodes != null ? nodes : NodeWatch.informer(client))
              .watch(
                  nodeName,
                  node -> {
                    if (labelled) {
                      onNode(node);
                    }
                    if (faults != null) {
                      faults.onNode(node);
                    }
                  });
    }
    return this;
  }

  /** The running agent. */
  public synchronized DevicePluginAgent agent() {
    return agent;
  }

  /** Restarts every resource, as the original does on SIGHUP. */
  public synchronized void restartAll() {
    agent.restartAll();
  }

  private void onNode(Node node) {
    String value =
        node.getMetadata().getLabels() == null
            ? null
            : node.getMetadata().getLabels().get(PluginNames.CONFIG_LABEL);
    if (!Objects.equals(value, label)) {
      LOG.info(
          "node/{}: label {} changed from {} to {}",
          nodeName,
          PluginNames.CONFIG_LABEL,
          label,
          value);
      label = value;
      fileWatch.execute(this::reload);
    }
  }

  private void checkFileQuietly() {
    // Unlocked (the fields are volatile): a reload holding the lock must not stall the batch.
    Path file = activeFile;
    FileTime known = activeModified;
    if (file != null && !Objects.equals(modified(file), known)) {
      fileWatch.execute(this::checkFile);
    }
  }

  private void checkFile() {
    Path file;
    FileTime known;
    synchronized (this) {
      file = activeFile;
      known = activeModified;
    }
    if (file != null && !Objects.equals(modified(file), known)) {
      LOG.info("config file {} changed", file);
      reload();
    }
  }

  /** Loads the selected config again and applies it; on error keeps the running one. */
  synchronized void reload() {
    try {
      agent.reload(currentSettings());
    } catch (RuntimeException | IOException e) {
      LOG.error(
          "node/{}: config not applied, keeping the running one: {}", nodeName, e.getMessage());
    }
  }

  private static FileTime modified(Path p) {
    try {
      return p == null ? null : Files.getLastModifiedTime(p);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public synchronized void close() {
    if (nodeWatch != null) {
      try {
        nodeWatch.close();
      } catch (Exception e) {
        LOG.warn("node/{}: closing the Node watch: {}", nodeName, e.toString());
      }
    }
    fileWatch.close();
    if (agent != null) {
      agent.close();
    }
  }
}
