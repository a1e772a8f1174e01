package io.gpuoperator.node.mig;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.config.YamlFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A MIG configuration file in mig-parted's format ({@code version: v1}, {@code mig-configs}: name →
 * list of {@link MigConfigSpec}), as the original's mig-manager reads it from a ConfigMap. Parsing
 * is strict like mig-parted's: an unknown field, a wrong type or a bad value is an error naming
 * file, line and field.
 *
 * @param version always {@code v1}
 * @param migConfigs the named configurations, in file order
 */
public record MigConfigFile(
    @JsonProperty("version") String version,
    @JsonProperty("mig-configs") Map<String, List<MigConfigSpec>> migConfigs) {

  /** The only version of the format. */
  public static final String VERSION = "v1";

  public MigConfigFile {
    if (!VERSION.equals(version)) {
      throw new IllegalArgumentException(
          "version: required and must be " + VERSION + ", got " + version);
    }
    if (migConfigs == null || migConfigs.isEmpty()) {
      throw new IllegalArgumentException("mig-configs: at least one configuration required");
    }
    Map<String, List<MigConfigSpec>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, List<MigConfigSpec>> e : migConfigs.entrySet()) {
      if (e.getValue() == null || e.getValue().isEmpty()) {
        throw new IllegalArgumentException(
            "mig-configs: " + e.getKey() + ": at least one entry required");
      }
      if (e.getValue().stream().anyMatch(java.util.Objects::isNull)) {
        throw new IllegalArgumentException("mig-configs: " + e.getKey() + ": empty entry");
      }
      copy.put(e.getKey(), List.copyOf(e.getValue()));
    }
    migConfigs = java.util.Collections.unmodifiableMap(copy);
  }

  /** Reads a file. */
  public static MigConfigFile load(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return parse(in, file.toString());
    } catch (IOException e) {
      throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** Parses YAML (or JSON) text; {@code source} names it in errors. */
  public static MigConfigFile parse(String text, String source) {
    return parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source);
  }

  private static MigConfigFile parse(InputStream in, String source) {
    return YamlFiles.read(in, source, MigConfigFile.class, Map.of(), ConfigException::new);
  }

  /** The entries of a configuration; a ConfigException naming the known ones when absent. */
  public List<MigConfigSpec> config(String name) {
    List<MigConfigSpec> c = migConfigs.get(name);
    if (c == null) {
      throw new ConfigException(
          "MIG config '"
              + name
              + "' is not in the file; it has "
              + migConfigs.size()
              + " configs, e.g. "
              + String.join(", ", migConfigs.keySet().stream().limit(5).toList()));
    }
    return c;
  }

  /** The file as YAML in the layout of the original's ConfigMap. */
  public String toYaml() {
    StringBuilder sb = new StringBuilder("version: ").append(version).append("\nmig-configs:\n");
    boolean first = true;
    for (Map.Entry<String, List<MigConfigSpec>> e : migConfigs.entrySet()) {
      if (!first) {
        sb.append('\n');
      }
      first = false;
      sb.append("  ").append(e.getKey()).append(":\n");
      for (MigConfigSpec s : e.getValue()) {
        String lead = "    - ";
        if (!s.deviceFilter().isEmpty()) {
          sb.append(lead).append("device-filter: [");
          sb.append(
              String.join(", ", s.deviceFilter().stream().map(id -> "\"" + id + "\"").toList()));
          sb.append("]\n");
          lead = "      ";
        }
        sb.append(lead).append("devices: ").append(s.devices()).append('\n');
        sb.append("      mig-enabled: ").append(s.migEnabled()).append('\n');
        if (s.migEnabled()) {
          if (s.migDevices().isEmpty()) {
            sb.append("      mig-devices: {}\n");
          } else {
            sb.append("      mig-devices:\n");
            s.migDevices()
                .forEach(
                    (p, n) ->
                        sb.append("        \"").append(p).append("\": ").append(n).append('\n'));
          }
        }
      }
    }
    return sb.toString();
  }
}
