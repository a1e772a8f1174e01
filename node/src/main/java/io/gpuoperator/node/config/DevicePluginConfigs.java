package io.gpuoperator.node.config;

import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Values;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the device-plugin configuration file (YAML or JSON) through the project's one loading path
 * ({@link Documents}). Like the original, unknown fields are ignored (logged as warnings) so
 * configs written for newer releases still load; wrong types, values out of range and a wrong
 * {@code version} are errors naming file, line and field. The agents' flags in the file ({@code
 * flags.*}) are checked when the agents resolve their settings from the {@link Document}.
 */
public final class DevicePluginConfigs {
  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginConfigs.class);

  private DevicePluginConfigs() {}

  /** An empty config: every setting at its default. */
  public static DevicePluginConfig empty() {
    return new DevicePluginConfig(DevicePluginConfig.VERSION, null, null, null, null);
  }

  /** Reads a config file (for its fields' positions too); ConfigException when unreadable. */
  public static Document read(Path file) {
    return Documents.read(file);
  }

  /** Loads and validates a config file. */
  public static DevicePluginConfig load(Path file) {
    return parse(read(file));
  }

  /** Parses config text; {@code source} names it in messages. */
  public static DevicePluginConfig parse(String text, String source) {
    return parse(Documents.parse(text, source));
  }

  /** Binds and validates a config document. */
  public static DevicePluginConfig parse(Document doc) {
    List<String> warnings = new ArrayList<>();
    DevicePluginConfig c = doc.bindLenient(DevicePluginConfig.class, warnings);
    warnings.forEach(w -> LOG.warn("config file {}", w));
    if (c.version() == null) {
      throw doc.error("version", "required (expected v1)");
    }
    if (!c.version().equals(DevicePluginConfig.VERSION)) {
      throw doc.error("version", "unknown version " + Values.quote(c.version()) + "; expected v1");
    }
    if ("mps".equals(c.sharingStrategy())
        && c.flags() != null
        && "mixed".equals(c.flags().migStrategy())) {
      throw doc.error("sharing.mps", "MPS sharing is not supported with migStrategy mixed");
    }
    if (c.resources() != null) {
      LOG.warn(
          "config file {}: custom resource naming is disabled; the section is ignored",
          doc.where("resources"));
    }
    return c;
  }

  static void oneOf(String field, String value, Set<String> allowed) {
    if (value != null && !allowed.contains(value)) {
      throw new IllegalArgumentException(
          field
              + ": unknown value "
              + Values.quote(value)
              + "; expected "
              + Values.oneOf(new TreeSet<>(allowed)));
    }
  }
}
