package io.gpuoperator.node.dra;

import java.util.Map;

/**
 * How the devices of a claim are shared between the processes (and pods) using them, from NVIDIA's
 * opaque {@code GpuConfig}/{@code MigDeviceConfig} {@code sharing} field.
 *
 * @param strategy time-slicing or MPS
 * @param interval the time-slice of a GPU under time-slicing; null for MPS
 * @param mps MPS limits; null under time-slicing
 */
public record Sharing(Strategy strategy, Interval interval, Mps mps) {

  /** What a device gets without configuration: time-slicing at the driver's default interval. */
  public static final Sharing DEFAULT = new Sharing(Strategy.TIME_SLICING, Interval.DEFAULT, null);

  /** The sharing strategies, by their API names. */
  public enum Strategy {
    TIME_SLICING("TimeSlicing"),
    MPS("MPS");

    private final String apiName;

    Strategy(String apiName) {
      this.apiName = apiName;
    }

    public String apiName() {
      return apiName;
    }
  }

  /**
   * Time-slice lengths, by their API names, with the value {@code nvidia-smi compute-policy
   * --set-timeslice} takes.
   */
  public enum Interval {
    DEFAULT("Default", 0),
    SHORT("Short", 1),
    MEDIUM("Medium", 2),
    LONG("Long", 3);

    private final String apiName;
    private final int smiValue;

    Interval(String apiName, int smiValue) {
      this.apiName = apiName;
      this.smiValue = smiValue;
    }

    public String apiName() {
      return apiName;
    }

    public int smiValue() {
      return smiValue;
    }
  }

  /**
   * MPS limits the workload sees.
   *
   * @param activeThreadPercentage {@code defaultActiveThreadPercentage}, null when unset
   * @param pinnedMemoryLimitBytes {@code defaultPinnedDeviceMemoryLimit}, null when unset
   * @param perDeviceLimitBytes {@code defaultPerDevicePinnedMemoryLimit}, by device UUID or index
   */
  public record Mps(
      Integer activeThreadPercentage,
      Long pinnedMemoryLimitBytes,
      Map<String, Long> perDeviceLimitBytes) {
    public Mps {
      perDeviceLimitBytes =
          perDeviceLimitBytes == null ? Map.of() : Map.copyOf(perDeviceLimitBytes);
    }
  }
}
