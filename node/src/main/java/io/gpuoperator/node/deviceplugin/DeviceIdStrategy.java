package io.gpuoperator.node.deviceplugin;

import java.util.Locale;

/** Which device IDs go into the Allocate response ({@code deviceIDStrategy}). */
public enum DeviceIdStrategy {
  /** {@code GPU-...} / {@code MIG-...}. */
  UUID,
  /** NVML indices: {@code 0}, MIG {@code 0:1}. */
  INDEX;

  /** Parses {@code uuid|index}; the error names the field and the allowed values. */
  public static DeviceIdStrategy parse(String field, String value) {
    for (DeviceIdStrategy s : values()) {
      if (s.name().toLowerCase(Locale.ROOT).equals(value == null ? "" : value.trim())) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        field + ": unknown device ID strategy '" + value + "', expected uuid or index");
  }
}
