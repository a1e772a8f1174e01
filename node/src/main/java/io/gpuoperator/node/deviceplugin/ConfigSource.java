package io.gpuoperator.node.deviceplugin;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the plugin's config file comes from: one file, or a directory of named configs chosen per
 * node by the {@code nvidia.com/device-plugin.config} label (as the original's config-manager
 * sidecar does with {@code /available-configs}), falling back to a default name.
 *
 * @param file a single config file, or null
 * @param dir a directory of named configs, or null
 * @param defaultName the config used when the node has no label (may be null)
 */
public record ConfigSource(Path file, Path dir, String defaultName) {
  /** No config file: defaults, env and flags only. */
  public static final ConfigSource NONE = new ConfigSource(null, null, null);

  /** True when the node label picks the config. */
  public boolean labelled() {
    return dir != null;
  }

  /**
   * The file for a label value (null: no label), or null for none.
   *
   * @throws io.gpuoperator.config.ConfigException when the label names a config the directory lacks
   */
  public Path select(String labelValue) {
    if (dir == null) {
      return file;
    }
    String name = labelValue != null && !labelValue.isBlank() ? labelValue : defaultName;
    if (name == null || name.isBlank()) {
      return null;
    }
    if (name.contains("/") || name.equals("..")) {
      throw new io.gpuoperator.config.ConfigException(
          "label " + PluginNames.CONFIG_LABEL + "=" + name + ": not a config name");
    }
    Path p = dir.resolve(name);
    if (!Files.isRegularFile(p)) {
      throw new io.gpuoperator.config.ConfigException(
          "label "
              + PluginNames.CONFIG_LABEL
              + "="
              + name
              + ": no config named "
              + name
              + " in "
              + dir);
    }
    return p;
  }
}
