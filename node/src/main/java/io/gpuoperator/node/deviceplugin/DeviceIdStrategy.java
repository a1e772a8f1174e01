package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.config.Parse;

/** Which device IDs go into the Allocate response ({@code deviceIDStrategy}). */
public enum DeviceIdStrategy {
  /** {@code GPU-...} / {@code MIG-...}. */
  UUID,
  /** NVML indices: {@code 0}, MIG {@code 0:1}. */
  INDEX;

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static DeviceIdStrategy parse(String value) {
    return Parse.constant("device ID strategy", values()).apply(value);
  }
}
