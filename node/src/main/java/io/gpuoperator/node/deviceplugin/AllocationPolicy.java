package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.config.Parse;

/** How replicas of shared devices are chosen ({@code sharedDevicesAllocationPolicy}). */
public enum AllocationPolicy {
  /** Spread over the least used devices first (the default). */
  DISTRIBUTED,
  /** Fill the most used devices first. */
  PACKED;

  /** Parses the config-file spelling; the error names the value and what is accepted. */
  public static AllocationPolicy parse(String value) {
    return Parse.constant("allocation policy", values()).apply(value);
  }
}
