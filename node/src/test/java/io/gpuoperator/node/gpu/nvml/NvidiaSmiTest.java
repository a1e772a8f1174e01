package io.gpuoperator.node.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.GpuBackendException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where nvidia-smi is found (driver roots, then PATH), how it is run, and the error without one.
 */
class NvidiaSmiTest {
  @TempDir Path tmp;

  /** An executable shell script at {@code file}. */
  static Path script(Path file, String body) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    return file;
  }

  @Test
  void theFirstDriverRootWithAnExecutableWinsAndItsNvmlIsPreloaded() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    Path notExecutable = tmp.resolve("plain");
    Files.createDirectories(notExecutable.resolve("usr/bin"));
    Files.writeString(notExecutable.resolve("usr/bin/nvidia-smi"), "not a program");
    Path driver = tmp.resolve("driver");
    Path smi = script(driver.resolve("usr/sbin/nvidia-smi"), "exit 0");
    Path lib = Files.createDirectories(driver.resolve("usr/lib/x86_64-linux-gnu"));
    Files.writeString(lib.resolve("libnvidia-ml.so.1"), "");
    Path later = tmp.resolve("later");
    script(later.resolve("usr/bin/nvidia-smi"), "exit 0");
    Path onPath = script(tmp.resolve("bin/nvidia-smi"), "exit 0");

    NvidiaSmi.Found found =
        new NvidiaSmi(List.of(empty, notExecutable, driver, later), onPath.getParent().toString())
            .find();

    assertThat(found.executable()).isEqualTo(smi);
    assertThat(found.preload()).isEqualTo(lib.resolve("libnvidia-ml.so.1"));
  }

  @Test
  void pathIsTheLastResortAndPreloadsNothing() throws Exception {
    Path onPath = script(tmp.resolve("bin/nvidia-smi"), "exit 0");
    NvidiaSmi.Found found =
        new NvidiaSmi(List.of(tmp.resolve("missing")), "/nonexistent::" + onPath.getParent())
            .find();
    assertThat(found).isEqualTo(new NvidiaSmi.Found(onPath, null));
  }

  @Test
  void noneAnywhereNamesWhereItLookedAndWhatToMount() {
    Path root = tmp.resolve("run/nvidia/driver");
    assertThatThrownBy(() -> new NvidiaSmi(List.of(root, tmp), "/nonexistent").find())
        .isInstanceOf(GpuBackendException.NotSupported.class)
        .hasMessageContaining("no executable nvidia-smi")
        .hasMessageContaining("driver root(s) " + root + ", " + tmp)
        .hasMessageContaining("(in /, /usr/bin, /usr/sbin, /bin, /sbin)")
        .hasMessageContaining("nor on PATH (/nonexistent)")
        .hasMessageContaining("set NVIDIA_DRIVER_ROOT (--nvidia-driver-root)");
    assertThatThrownBy(() -> new NvidiaSmi(List.of(), null).find())
        .hasMessageContaining("no driver root was given and none on PATH (unset)");
  }

  @Test
  void aDriverRootIsSearchedAtItsPathBelowTheHostRootThenTheHostRoot() throws Exception {
    Path host = Path.of("/host");
    assertThat(NvidiaSmi.forDriverRoot(Path.of("/run/nvidia/driver"), host, Map.of()).roots())
        .containsExactly(
            Path.of("/run/nvidia/driver"), Path.of("/host/run/nvidia/driver"), Path.of("/host"));
    assertThat(NvidiaSmi.forDriverRoot(Path.of("/"), host, Map.of()).roots())
        .containsExactly(Path.of("/"), Path.of("/host"));
    assertThat(NvidiaSmi.forDriverRoot(Path.of("/run/nvidia/driver"), null, Map.of()).roots())
        .containsExactly(Path.of("/run/nvidia/driver"));

    Path mounted = tmp.resolve("host");
    Path viaHost = script(mounted.resolve("run/nvidia/driver/usr/bin/nvidia-smi"), "exit 0");
    Path driverRoot = Path.of("/nonexistent/run/nvidia/driver");
    NvidiaSmi smi = NvidiaSmi.forDriverRoot(Path.of("/run/nvidia/driver"), mounted, Map.of());
    if (!Files.exists(Path.of("/run/nvidia/driver"))) { // a node with a driver container has it
      assertThat(smi.find().executable()).isEqualTo(viaHost);
    }
    Path hostSmi = script(mounted.resolve("usr/bin/nvidia-smi"), "exit 0");
    assertThat(NvidiaSmi.forDriverRoot(driverRoot, mounted, Map.of()).find().executable())
        .isEqualTo(hostSmi);
  }

  @Test
  void runPassesArgumentsAndPreloadAndReportsExitAndOutput() throws Exception {
    Path driver = tmp.resolve("driver");
    Path smi = script(driver.resolve("usr/bin/nvidia-smi"), "echo \"$@\"\nexit 3");
    Path lib = Files.createDirectories(driver.resolve("usr/lib64")).resolve("libnvidia-ml.so.1");
    Files.writeString(lib, "");

    NvidiaSmi.Result r =
        new NvidiaSmi(List.of(driver), null).run(List.of("-r", "-i", "x"), Duration.ofSeconds(30));

    assertThat(r.command()).isEqualTo(smi + " -r -i x");
    assertThat(r.exitCode()).isEqualTo(3);
    // The loader refuses the empty stand-in library and says so: proof it was preloaded.
    assertThat(r.output()).contains("-r -i x").contains(lib.toString());
  }

  @Test
  void aRunThatDoesNotExitInTimeIsKilledAndReported() throws Exception {
    Path driver = tmp.resolve("driver");
    script(driver.resolve("usr/bin/nvidia-smi"), "exec sleep 30");
    assertThatThrownBy(
            () -> new NvidiaSmi(List.of(driver), null).run(List.of("-r"), Duration.ofMillis(300)))
        .isInstanceOf(IOException.class)
        .hasMessageEndingWith("nvidia-smi -r: no answer within 0.3 s");
  }
}
