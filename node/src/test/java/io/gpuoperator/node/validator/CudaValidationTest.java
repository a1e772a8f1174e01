package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cuda step's workload command: CUDA's vectorAdd on real GPUs; on simulated ones a shell check
 * for a GPU device node, run here with its {@code /dev} swapped for a temp directory (a test cannot
 * make character devices in {@code /dev}; a link to {@code /dev/null} is one for {@code [ -c ]}).
 */
class CudaValidationTest {
  private static final String GLOB = "/dev/nvidia[0-9]*";

  @TempDir Path dev;

  record Result(int exit, String out, String err) {}

  /** Removes the links to {@code /dev/null} itself (JUnit would warn about them). */
  @AfterEach
  void removeLinks() throws Exception {
    try (var files = Files.list(dev)) {
      for (Path p : files.toList()) {
        if (Files.isSymbolicLink(p)) {
          Files.delete(p);
        }
      }
    }
  }

  /** The simulated workload with {@code /dev/nvidia<N>} looked up in {@link #dev}. */
  Result runCheckIn(Path dir) throws Exception {
    assertThat(CudaValidation.SIMULATED_WORKLOAD).contains(GLOB);
    String script = CudaValidation.SIMULATED_WORKLOAD.replace(GLOB, dir + "/nvidia[0-9]*");
    Process p = new ProcessBuilder("/bin/sh", "-c", script).start();
    p.getOutputStream().close();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return new Result(
        p.exitValue(),
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  @Test
  void realGpusRunVectorAddSimulatedOnesTheDeviceCheck() {
    ValidatorConfig nvml = ValidatorConfig.fromEnv(Map.of());
    ValidatorConfig simulated = ValidatorConfig.fromEnv(Map.of("GPU_BACKEND", "simulated"));
    assertThat(CudaValidation.command(nvml)).containsExactly("vectorAdd");
    assertThat(CudaValidation.command(simulated))
        .containsExactly("sh", "-c", CudaValidation.SIMULATED_WORKLOAD);
    assertThat(CudaValidation.workload(simulated).getSpec().getContainers().get(0).getCommand())
        .isEqualTo(CudaValidation.command(simulated));
  }

  @Test
  void theCheckPassesOnANumberedCharacterDevice() throws Exception {
    Files.createSymbolicLink(dev.resolve("nvidia0"), Path.of("/dev/null"));
    Result r = runCheckIn(dev);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("GPU device " + dev.resolve("nvidia0") + "\n");
  }

  @Test
  void theCheckFailsWithoutAnyDeviceAndSaysSoOnStderr() throws Exception {
    Result r = runCheckIn(dev);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).isEqualTo("no GPU device node (/dev/nvidia<N>) in the container\n");
  }

  @Test
  void filesThatAreNoCharacterDevicesDoNotCount() throws Exception {
    Files.writeString(dev.resolve("nvidia0"), "");
    Files.createDirectory(dev.resolve("nvidia1"));
    Process fifo = new ProcessBuilder("mkfifo", dev.resolve("nvidia2").toString()).start();
    assertThat(fifo.waitFor()).isZero();
    Result r = runCheckIn(dev);
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("no GPU device node");
  }

  @Test
  void onlyNumberedDevicesCountNotNvidiactl() throws Exception {
    for (String name : List.of("nvidiactl", "nvidia-uvm", "nvidia-caps")) {
      Files.createSymbolicLink(dev.resolve(name), Path.of("/dev/null"));
    }
    assertThat(runCheckIn(dev).exit()).isEqualTo(1);
  }

  @Test
  void aLaterNumberedDeviceIsFoundAfterOnesThatAreNot() throws Exception {
    Files.writeString(dev.resolve("nvidia0"), "");
    Files.createSymbolicLink(dev.resolve("nvidia1"), Path.of("/dev/null"));
    Result r = runCheckIn(dev);
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("nvidia1");
  }
}
