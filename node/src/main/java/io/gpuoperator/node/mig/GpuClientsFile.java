package io.gpuoperator.node.mig;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpuoperator.config.Documents;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The host GPU clients file of the original's MIG manager ({@code GPU_CLIENTS_FILE}, the ConfigMap
 * {@code default-gpu-clients}, key {@code clients.yaml}): the host's systemd services that hold the
 * GPUs and must stop while MIG is repartitioned. Parsing is strict: an unknown field, a wrong type
 * or a name that is no systemd unit is an error naming file, line and field.
 *
 * @param version always {@code v1}
 * @param systemdServices unit names, e.g. {@code dcgm.service}, in file order, each once
 */
public record GpuClientsFile(
    @JsonProperty("version") String version,
    @JsonProperty("systemd-services") List<String> systemdServices) {

  /** The only version of the format. */
  public static final String VERSION = "v1";

  /** What systemd accepts in a unit name (letters, digits, {@code :-_.\@}). */
  private static final String UNIT = "[A-Za-z0-9:_.@\\\\-]+";

  public GpuClientsFile {
    if (!VERSION.equals(version)) {
      throw new IllegalArgumentException(
          "version: required and must be " + VERSION + ", got " + version);
    }
    List<String> units = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    List<String> given = systemdServices == null ? List.of() : systemdServices;
    for (int i = 0; i < given.size(); i++) {
      String u = given.get(i) == null ? "" : given.get(i).trim();
      if (!u.matches(UNIT)) {
        throw new IllegalArgumentException(
            "systemd-services: item "
                + i
                + ", '"
                + given.get(i)
                + "', is not a systemd unit name (e.g. dcgm.service)");
      }
      if (seen.add(u)) {
        units.add(u);
      }
    }
    systemdServices = List.copyOf(units);
  }

  /** Reads a file. */
  public static GpuClientsFile load(Path file) {
    return Documents.read(file).bind(GpuClientsFile.class);
  }

  /** Parses YAML (or JSON) text; {@code source} names it in errors. */
  public static GpuClientsFile parse(String text, String source) {
    return Documents.parse(text, source).bind(GpuClientsFile.class);
  }
}
