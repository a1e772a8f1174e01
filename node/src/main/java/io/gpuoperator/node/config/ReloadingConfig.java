package io.gpuoperator.node.config;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device-plugin config file that is read again whenever it changes (the config-manager sidecar
 * replaces it when the node's {@code nvidia.com/device-plugin.config} label changes). A changed
 * file that does not parse is logged and the last good config stays in use.
 */
public final class ReloadingConfig implements Supplier<DevicePluginConfig> {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingConfig.class);
  private final Path file;
  private Document document;
  private DevicePluginConfig current;
  private FileTime modified;
  private long size;

  /** Loads the file now; a bad file at start is an error (ConfigException). */
  public ReloadingConfig(Path file) {
    this.file = file;
    this.document = DevicePluginConfigs.read(file);
    this.current = DevicePluginConfigs.parse(document);
    stamp();
  }

  private boolean stamp() {
    try {
      FileTime m = Files.getLastModifiedTime(file);
      long s = Files.size(file);
      boolean changed = !Objects.equals(m, modified) || s != size;
      modified = m;
      size = s;
      return changed;
    } catch (IOException e) {
      return false;
    }
  }

  /** The file as first read, for the agents' flags in it. */
  public synchronized Document document() {
    return document;
  }

  /** The config, re-read first when the file changed since the last call. */
  @Override
  public synchronized DevicePluginConfig get() {
    if (stamp()) {
      try {
        Document d = DevicePluginConfigs.read(file);
        current = DevicePluginConfigs.parse(d);
        document = d;
        LOG.info("config file {} reloaded", file);
      } catch (ConfigException e) {
        LOG.error(
            "config file changed but is invalid; keeping the previous one: {}", e.getMessage());
      }
    }
    return current;
  }
}
