package io.gpuoperator.node.deviceplugin;

import java.util.Locale;

/** How MIG devices become resources ({@code flags.migStrategy}). */
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

  /** Parses {@code none|single|mixed}; the error names the field and the allowed values. */
  public static MigStrategy parse(String field, String value) {
    for (MigStrategy s : values()) {
      if (s.value().equals(value == null ? "" : value.trim().toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        field + ": unknown MIG strategy '" + value + "', expected none, single or mixed");
  }
}
