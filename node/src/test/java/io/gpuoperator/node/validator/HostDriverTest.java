package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the validator finds the driver: a driver on the host (seen under a temp directory standing
 * for {@code /host}) makes the driver root {@code /}; an explicit root is kept; without either, the
 * driver container's default.
 */
class HostDriverTest {
  @TempDir Path host;

  static ValidatorConfig config(Map<String, String> env) {
    return ValidatorConfig.fromEnv(env);
  }

  /** An executable file at {@code relative} under the host root. */
  Path executable(String relative) throws Exception {
    Path p = host.resolve(relative);
    Files.createDirectories(p.getParent());
    Files.writeString(p, "#!/bin/sh\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    return p;
  }

  @Test
  void anEmptyHostKeepsTheDriverContainersRoot() {
    ValidatorConfig resolved = HostDriver.resolve(config(Map.of()), false, host);
    assertThat(resolved.driverRoot()).isEqualTo(Path.of("/run/nvidia/driver"));
    assertThat(resolved.hostDriver()).isFalse();
  }

  @Test
  void theHostsNvidiaSmiMakesTheDriverRootSlash() throws Exception {
    executable("usr/bin/nvidia-smi");
    ValidatorConfig resolved = HostDriver.resolve(config(Map.of()), false, host);
    assertThat(resolved.driverRoot()).isEqualTo(Path.of("/"));
    assertThat(resolved.hostDriver()).isTrue();
  }

  @Test
  void aNvidiaSmiThatCannotRunIsNoDriver() throws Exception {
    Path smi = executable("usr/bin/nvidia-smi");
    Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(HostDriver.resolve(config(Map.of()), false, host).driverRoot())
        .isEqualTo(Path.of("/run/nvidia/driver"));
  }

  @Test
  void theHostsNvmlLibraryMakesTheDriverRootSlash() throws Exception {
    Path lib = Files.createDirectories(host.resolve("usr/lib/x86_64-linux-gnu"));
    Files.writeString(lib.resolve("libnvidia-ml.so.1"), "");
    assertThat(HostDriver.resolve(config(Map.of()), false, host).driverRoot())
        .isEqualTo(Path.of("/"));
  }

  @Test
  void anExplicitDriverRootIsKeptEvenWithADriverOnTheHost() throws Exception {
    executable("usr/bin/nvidia-smi");
    for (String root : new String[] {"/run/nvidia/driver", "/opt/nvidia"}) {
      ValidatorConfig given = config(Map.of("NVIDIA_DRIVER_ROOT", root));
      assertThat(HostDriver.resolve(given, true, host).driverRoot()).isEqualTo(Path.of(root));
    }
  }

  @Test
  void simulatedGpusOfANamedNodeProfileAreAHostDriver() {
    ValidatorConfig simulated =
        config(Map.of("GPU_BACKEND", "simulated", "GPU_NODE_PROFILE", "dgx-h100"));
    ValidatorConfig resolved = HostDriver.resolve(simulated, false, host);
    assertThat(resolved.driverRoot()).isEqualTo(Path.of("/"));
    assertThat(resolved.hostDriver()).isTrue();
  }

  @Test
  void simulatedGpusWithoutANodeProfileWaitForASimulatedDriverContainer() throws Exception {
    // The profile is then node-profile.yaml in the driver root; the host's files do not count.
    executable("usr/bin/nvidia-smi");
    ValidatorConfig resolved =
        HostDriver.resolve(config(Map.of("GPU_BACKEND", "simulated")), false, host);
    assertThat(resolved.driverRoot()).isEqualTo(Path.of("/run/nvidia/driver"));
    assertThat(resolved.hostDriver()).isFalse();
  }
}
