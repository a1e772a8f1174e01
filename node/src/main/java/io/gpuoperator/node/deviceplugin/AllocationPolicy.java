package io.gpuoperator.node.deviceplugin;

import java.util.Locale;

/** How replicas of shared devices are chosen ({@code sharedDevicesAllocationPolicy}). */
public enum AllocationPolicy {
  /** Spread over the least used devices first (the default). */
  DISTRIBUTED,
  /** Fill the most used devices first. */
  PACKED;

  /** Parses {@code distributed|packed}; the error names the field and the allowed values. */
  public static AllocationPolicy parse(String field, String value) {
    for (AllocationPolicy p : values()) {
      if (p.name().toLowerCase(Locale.ROOT).equals(value == null ? "" : value.trim())) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        field + ": unknown allocation policy '" + value + "', expected distributed or packed");
  }
}
