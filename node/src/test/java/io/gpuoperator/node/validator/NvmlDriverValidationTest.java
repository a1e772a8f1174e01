package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The driver step with the real NVML library (Debian's libnvidia-ml1, fetched by
 * scripts/test-deps.sh) installed in a driver root, on a machine without a GPU: it must fail with
 * NVML's own "driver not loaded" reason, not crash.
 */
class NvmlDriverValidationTest {
  @TempDir Path tmp;

  int run(Map<String, String> env, StringWriter err, String... args) {
    CommandLine cl =
        new CommandLine(new ValidatorCommand(env, () -> null, DefaultBackendOpener::new));
    cl.setErr(new PrintWriter(err, true));
    cl.setOut(new PrintWriter(new StringWriter(), true));
    return cl.execute(args);
  }

  @Test
  void realNvmlInADriverRootFailsCleanlyWithoutAGpu() throws Exception {
    Path lib = Path.of(System.getProperty("gpu-operator.nvml.lib", "/nonexistent"));
    Assumptions.assumeTrue(
        Files.exists(lib), "libnvidia-ml.so.1 not fetched (run scripts/test-deps.sh): " + lib);
    Assumptions.assumeFalse(
        Files.exists(Path.of("/proc/driver/nvidia")), "this machine has an NVIDIA driver loaded");
    Path root = tmp.resolve("driver");
    Path dir = Files.createDirectories(root.resolve("usr/lib/x86_64-linux-gnu/nvidia/current"));
    Files.createSymbolicLink(dir.resolve("libnvidia-ml.so.1"), lib.toRealPath());
    StringWriter err = new StringWriter();
    Map<String, String> env =
        Map.of(
            "VALIDATIONS_DIR", tmp.resolve("v").toString(), "NVIDIA_DRIVER_ROOT", root.toString());
    assertThat(run(env, err, "--component", "driver")).isEqualTo(1);
    assertThat(err.toString())
        .contains("driver validation failed")
        .contains("the GPU backend did not initialise")
        .contains("NVIDIA driver not loaded");
    assertThat(tmp.resolve("v/driver-ready")).doesNotExist();
  }

  @Test
  void driverRootWithoutNvmlIsReported() {
    StringWriter err = new StringWriter();
    Map<String, String> env =
        Map.of(
            "VALIDATIONS_DIR", tmp.resolve("v").toString(), "NVIDIA_DRIVER_ROOT", tmp.toString());
    assertThat(run(env, err, "--component", "driver")).isEqualTo(1);
    assertThat(err.toString()).contains("no libnvidia-ml.so.1 in usr/lib64");
  }
}
