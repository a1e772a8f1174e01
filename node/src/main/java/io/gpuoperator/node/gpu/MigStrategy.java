package io.gpuoperator.node.gpu;

import java.util.Locale;

/**
 * How MIG devices become resources ({@code flags.migStrategy}): the device plugin advertises by it
 * and feature discovery labels by it, so both read it from here.
 */
public enum MigStrategy {
  /** MIG is ignored: every GPU is one {@code nvidia.com/gpu}. */
  NONE,
  /** All GPUs have MIG enabled with one profile: MIG devices are {@code nvidia.com/gpu}. */
  SINGLE,
  /** One resource per MIG profile, {@code nvidia.com/mig-<profile>}, plus whole GPUs. */
  MIXED;

  /** The config-file spelling. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static MigStrategy parse(String value) {
    java.util.Map<String, MigStrategy> names = new java.util.LinkedHashMap<>();
    for (MigStrategy v : values()) {
      names.put(v.value(), v);
    }
    return io.gpuoperator.config.Parse.oneOf("MIG strategy", names)
        .apply(value.strip().toLowerCase(Locale.ROOT));
  }
}
