package io.gpuoperator.node.deviceplugin;

import java.util.Locale;

/** How replicas of shared devices are chosen ({@code sharedDevicesAllocationPolicy}). */
public enum AllocationPolicy {
  /** Spread over the least used devices first (the default). */
  DISTRIBUTED,
  /** Fill the most used devices first. */
  PACKED;

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static AllocationPolicy parse(String value) {
    java.util.Map<String, AllocationPolicy> names = new java.util.LinkedHashMap<>();
    for (AllocationPolicy v : values()) {
      names.put(v.name().toLowerCase(Locale.ROOT), v);
    }
    return io.gpuoperator.config.Parse.oneOf("allocation policy", names)
        .apply(value.strip().toLowerCase(Locale.ROOT));
  }
}
