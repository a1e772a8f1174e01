package io.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver-ready marker: its format, how it is read and how agents take it over their env. */
class DriverReadyTest {
  @TempDir Path tmp;

  @Test
  void formatWritesOneLinePerValueInOrderAndReadGivesThemBack() throws Exception {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("IS_HOST_DRIVER", "true");
    values.put("NVIDIA_DRIVER_ROOT", "/");
    values.put("DRIVER_ROOT_CTR_PATH", "/host");
    values.put("GPU_COUNT", "8");
    String text = DriverReady.format(values);
    assertThat(text)
        .isEqualTo(
            "IS_HOST_DRIVER=true\nNVIDIA_DRIVER_ROOT=/\nDRIVER_ROOT_CTR_PATH=/host\nGPU_COUNT=8\n");
    Path file = Files.writeString(tmp.resolve("driver-ready"), text);
    assertThat(DriverReady.read(file)).containsExactlyEntriesOf(values);
  }

  @Test
  void anAbsentMarkerReadsAsEmpty() {
    assertThat(DriverReady.read(tmp.resolve("driver-ready"))).isEmpty();
    assertThat(DriverReady.read(tmp)).as("a directory is no marker").isEmpty();
    assertThat(DriverReady.read(null)).isEmpty();
  }

  @Test
  void commentsBlankLinesAndLinesWithoutAKeySkippedValuesTrimmed() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("driver-ready"),
            "# written by the validator=yes\n"
                + "\n"
                + "garbage\n"
                + "=no-key\n"
                + " NVIDIA_DRIVER_ROOT = /run/nvidia/driver \r\n"
                + "DRIVER_VERSION=550.54.15\n"
                + "EMPTY=\n"
                + "OPTS=a=b\n");
    assertThat(DriverReady.read(file))
        .containsExactly(
            Map.entry("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver"),
            Map.entry("DRIVER_VERSION", "550.54.15"),
            Map.entry("EMPTY", ""),
            Map.entry("OPTS", "a=b"));
  }

  @Test
  void overlayPutsTheMarkersValuesOverTheEnvAndKeepsTheRest() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("driver-ready"), "NVIDIA_DRIVER_ROOT=/\nDRIVER_ROOT_CTR_PATH=/host\n");
    Map<String, String> env =
        Map.of(
            DriverReady.FILE_ENV,
            file.toString(),
            "NVIDIA_DRIVER_ROOT",
            "/run/nvidia/driver",
            "NODE_NAME",
            "node-a");
    assertThat(DriverReady.overlay(env))
        .containsOnly(
            Map.entry(DriverReady.FILE_ENV, file.toString()),
            Map.entry("NVIDIA_DRIVER_ROOT", "/"),
            Map.entry("DRIVER_ROOT_CTR_PATH", "/host"),
            Map.entry("NODE_NAME", "node-a"));
    assertThat(env)
        .as("the env itself is not changed")
        .containsEntry("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver");
  }

  @Test
  void overlayWithoutAMarkerIsTheEnvUnchanged() {
    Map<String, String> env =
        Map.of(
            DriverReady.FILE_ENV,
            tmp.resolve("absent").toString(),
            "NVIDIA_DRIVER_ROOT",
            "/run/nvidia/driver");
    assertThat(DriverReady.overlay(env)).isEqualTo(env);
  }

  @Test
  void overlayReadsTheMarkerNamedByDriverReadyFile() throws Exception {
    Files.writeString(tmp.resolve("a"), "GPU_COUNT=1\n");
    Files.writeString(tmp.resolve("b"), "GPU_COUNT=2\n");
    assertThat(DriverReady.overlay(Map.of(DriverReady.FILE_ENV, tmp.resolve("b").toString())))
        .containsEntry("GPU_COUNT", "2");
  }

  @Test
  void isHostDriverIsTheMarkersIsHostDriverAndFalseWithoutOne() throws Exception {
    Path file = tmp.resolve("driver-ready");
    assertThat(DriverReady.isHostDriver(file)).isFalse();
    Files.writeString(file, "NVIDIA_DRIVER_ROOT=/\n");
    assertThat(DriverReady.isHostDriver(file)).as("no IS_HOST_DRIVER").isFalse();
    Files.writeString(file, "IS_HOST_DRIVER=false\n");
    assertThat(DriverReady.isHostDriver(file)).isFalse();
    Files.writeString(file, "IS_HOST_DRIVER=true\n");
    assertThat(DriverReady.isHostDriver(file)).isTrue();
  }
}
