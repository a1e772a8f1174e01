package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.nvml.NvidiaSmi;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sets a GPU's compute time-slice. NVML has no call for it; NVIDIA's DRA driver runs {@code
 * nvidia-smi compute-policy --set-timeslice} and so does {@link #nvidiaSmi}, with the driver's own
 * nvidia-smi ({@link NvidiaSmi}). Simulated GPUs use {@link #recording()}, which keeps what was set
 * so tests and the simulator can show it.
 */
public interface TimeSlicing {

  /** Sets the GPU's time-slice. */
  void set(GpuDevice gpu, Sharing.Interval interval) throws IOException;

  /** Runs {@code <nvidia-smi> compute-policy -i <uuid> --set-timeslice=<0..3>}. */
  static TimeSlicing nvidiaSmi(NvidiaSmi nvidiaSmi) {
    return (gpu, interval) -> {
      List<String> args =
          List.of("compute-policy", "-i", gpu.uuid(), "--set-timeslice=" + interval.smiValue());
      NvidiaSmi.Result r;
      try {
        r = nvidiaSmi.run(args, Duration.ofSeconds(60));
      } catch (GpuBackendException e) {
        throw new IOException("setting the time-slice of " + gpu.uuid() + ": " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(NvidiaSmi.NAME + " " + String.join(" ", args) + ": interrupted", e);
      }
      if (r.exitCode() != 0) {
        throw new IOException(
            r.command() + " failed with exit code " + r.exitCode() + ": " + r.output());
      }
    };
  }

  /** Remembers the interval of each GPU (by UUID). */
  static Recording recording() {
    return new Recording();
  }

  /** A {@link TimeSlicing} that records instead of touching hardware. */
  final class Recording implements TimeSlicing {
    private final Map<String, Sharing.Interval> intervals = new ConcurrentHashMap<>();

    @Override
    public void set(GpuDevice gpu, Sharing.Interval interval) {
      intervals.put(gpu.uuid(), interval);
    }

    /** The interval last set on each GPU, by UUID. */
    public Map<String, Sharing.Interval> intervals() {
      return Map.copyOf(intervals);
    }
  }
}
