package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.config.Values;

/** How replicated devices are shared; MPS wins when both are configured. */
public enum SharingStrategy {
  NONE,
  TIME_SLICING,
  MPS;

  /**
   * The value feature discovery writes into {@code nvidia.com/gpu.sharing-strategy}: {@code none},
   * {@code time-slicing} or {@code mps}.
   */
  public String label() {
    return Values.kebab(this);
  }
}
