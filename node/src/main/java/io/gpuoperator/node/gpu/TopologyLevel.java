package io.gpuoperator.node.gpu;

/** The closest common PCIe ancestor of two GPUs ({@code nvmlGpuTopologyLevel_t}), nearest first. */
public enum TopologyLevel {
  INTERNAL(0),
  SINGLE(10),
  MULTIPLE(20),
  HOSTBRIDGE(30),
  NODE(40),
  SYSTEM(50);

  private final int nvmlValue;

  TopologyLevel(int nvmlValue) {
    this.nvmlValue = nvmlValue;
  }

  /** NVML's value. */
  public int nvmlValue() {
    return nvmlValue;
  }

  /** The level of an NVML value; unknown values count as the farthest. */
  public static TopologyLevel ofNvml(int value) {
    for (TopologyLevel l : values()) {
      if (l.nvmlValue == value) {
        return l;
      }
    }
    return SYSTEM;
  }
}
