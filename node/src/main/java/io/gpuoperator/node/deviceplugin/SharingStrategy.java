package io.gpuoperator.node.deviceplugin;

/** How replicated devices are shared; MPS wins when both are configured. */
public enum SharingStrategy {
  NONE("none"),
  TIME_SLICING("time-slicing"),
  MPS("mps");

  private final String label;

  SharingStrategy(String label) {
    this.label = label;
  }

  /** The value feature discovery writes into {@code nvidia.com/gpu.sharing-strategy}. */
  public String label() {
    return label;
  }
}
