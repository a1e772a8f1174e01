package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.config.Parse;
import java.util.Locale;

/** How replicas of shared devices are chosen ({@code sharedDevicesAllocationPolicy}). */
public enum AllocationPolicy {
  /** Spread over the least used devices first (the default). */
  DISTRIBUTED,
  /** Fill the most used devices first. */
  PACKED;

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static AllocationPolicy parse(String value) {
    return Parse.oneOf("allocation policy", values(), v -> v.name().toLowerCase(Locale.ROOT))
        .apply(value.strip().toLowerCase(Locale.ROOT));
  }
}
