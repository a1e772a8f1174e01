package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.GpuDevice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Sets a GPU's compute time-slice. NVML has no call for it; NVIDIA's DRA driver runs {@code
 * nvidia-smi compute-policy --set-timeslice} and so does {@link #nvidiaSmi}. Simulated GPUs use
 * {@link #recording()}, which keeps what was set so tests and the simulator can show it.
 */
public interface TimeSlicing {

  /** Sets the GPU's time-slice. */
  void set(GpuDevice gpu, Sharing.Interval interval) throws IOException;

  /** Runs {@code <nvidia-smi> compute-policy -i <uuid> --set-timeslice=<0..3>}. */
  static TimeSlicing nvidiaSmi(Path nvidiaSmi) {
    return (gpu, interval) -> {
      List<String> command =
          List.of(
              nvidiaSmi.toString(),
              "compute-policy",
              "-i",
              gpu.uuid(),
              "--set-timeslice=" + interval.smiValue());
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IOException(String.join(" ", command) + ": no answer within 60 s");
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException(String.join(" ", command) + ": interrupted", e);
      }
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.exitValue() != 0) {
        throw new IOException(
            String.join(" ", command) + " failed with exit code " + p.exitValue() + ": " + output);
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
