package io.gpuoperator.node.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the device-plugin configuration file (YAML or JSON). Like the original, unknown fields are
 * ignored (logged as warnings) so configs written for newer releases still load; wrong values,
 * wrong types and a wrong {@code version} are errors naming file, line and field.
 */
public final class DevicePluginConfigs {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginConfigs.class);

  private DevicePluginConfigs() {}

  /** An empty config: every setting at its default. */
  public static DevicePluginConfig empty() {
    return new DevicePluginConfig(DevicePluginConfig.VERSION, null, null, null, null);
  }

  /** Loads and validates a config file. */
  public static DevicePluginConfig load(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return parse(in, file.toString());
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read the config file: " + e.getMessage(), e);
    }
  }

  /** Parses config text; {@code source} names it in messages. */
  public static DevicePluginConfig parse(String text, String source) {
    return parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source);
  }

  private static DevicePluginConfig parse(InputStream in, String source) {
    List<String> warnings = new ArrayList<>();
    DevicePluginConfig c =
        YamlFiles.readLenient(in, source, DevicePluginConfig.class, warnings, ConfigException::new);
    warnings.forEach(w -> LOG.warn("config file {}", w));
    if (c.version() == null) {
      throw new ConfigException(source + ": version: required (expected v1)");
    }
    if (!c.version().equals(DevicePluginConfig.VERSION)) {
      throw new ConfigException(
          source + ": version: unknown version '" + c.version() + "' (expected v1)");
    }
    if ("mps".equals(c.sharingStrategy())
        && c.flags() != null
        && "mixed".equals(c.flags().migStrategy())) {
      throw new ConfigException(
          source + ": sharing.mps: MPS sharing is not supported with migStrategy mixed");
    }
    if (c.resources() != null) {
      LOG.warn(
          "config file {}: resources: custom resource naming is disabled; the section is ignored",
          source);
    }
    return c;
  }

  static void oneOf(String field, String value, Set<String> allowed) {
    if (value != null && !allowed.contains(value)) {
      throw new IllegalArgumentException(
          field
              + ": unknown value '"
              + value
              + "' (expected one of "
              + new TreeSet<>(allowed)
              + ")");
    }
  }
}
