package io.gpuoperator.node.deviceplugin;

import java.util.Locale;

/** Which device IDs go into the Allocate response ({@code deviceIDStrategy}). */
public enum DeviceIdStrategy {
  /** {@code GPU-...} / {@code MIG-...}. */
  UUID,
  /** NVML indices: {@code 0}, MIG {@code 0:1}. */
  INDEX;

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static DeviceIdStrategy parse(String value) {
    java.util.Map<String, DeviceIdStrategy> names = new java.util.LinkedHashMap<>();
    for (DeviceIdStrategy v : values()) {
      names.put(v.name().toLowerCase(Locale.ROOT), v);
    }
    return io.gpuoperator.config.Parse.oneOf("device ID strategy", names)
        .apply(value.strip().toLowerCase(Locale.ROOT));
  }
}
