package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.nvml.NvidiaSmi;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeSlicingTest {
  @TempDir Path dir;

  private static final GpuDevice GPU =
      new GpuDevice(
          0, "GPU-1234", "NVIDIA H100", "00000000:18:00.0", 0, 0, 0, 0, 1, 9, 0, 0, true, 132);

  /**
   * A driver root whose stand-in nvidia-smi records its arguments, so the command line is checked.
   */
  private NvidiaSmi fakeSmi(int exit) throws Exception {
    Path smi = Files.createDirectories(dir.resolve("driver/usr/bin")).resolve("nvidia-smi");
    Files.writeString(
        smi,
        "#!/bin/sh\necho \"$@\" > "
            + dir.resolve("args")
            + "\necho 'Unable to set' >&2\nexit "
            + exit
            + "\n");
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
    return new NvidiaSmi(List.of(dir.resolve("driver")), null);
  }

  @Test
  void runsNvidiaSmiComputePolicy() throws Exception {
    TimeSlicing.nvidiaSmi(fakeSmi(0)).set(GPU, Sharing.Interval.LONG);
    assertThat(Files.readString(dir.resolve("args")).trim())
        .isEqualTo("compute-policy -i GPU-1234 --set-timeslice=3");
  }

  @Test
  void aFailureCarriesNvidiaSmisOutput() throws Exception {
    assertThatThrownBy(() -> TimeSlicing.nvidiaSmi(fakeSmi(4)).set(GPU, Sharing.Interval.SHORT))
        .hasMessageContaining("--set-timeslice=1 failed with exit code 4: Unable to set");
  }

  @Test
  void withoutNvidiaSmiTheErrorSaysWhereItLooked() {
    NvidiaSmi none = new NvidiaSmi(List.of(dir.resolve("driver")), "/nonexistent");
    assertThatThrownBy(() -> TimeSlicing.nvidiaSmi(none).set(GPU, Sharing.Interval.SHORT))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageStartingWith("setting the time-slice of GPU-1234: no executable nvidia-smi")
        .hasMessageContaining("driver root(s) " + dir.resolve("driver"));
  }
}
