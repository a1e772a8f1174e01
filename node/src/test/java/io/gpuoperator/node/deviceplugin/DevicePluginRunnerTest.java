package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner re-reads a changed config file, and keeps the running config when a new one is bad.
 */
class DevicePluginRunnerTest {
  @TempDir Path dir;

  @Test
  void configFileChangesAreAppliedAndBadOnesIgnored() throws Exception {
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, "version: v1\n");
    try (SimulatedBackend backend = new SimulatedBackend(HardwareProfiles.node("dgx-h100"), "n");
        KubeletDeviceManager kubelet =
            new KubeletDeviceManager("n", dir.resolve("kubelet"), null).start();
        DevicePluginRunner runner =
            new DevicePluginRunner(
                    backend,
                    io.gpuoperator.config.Settings.ofEnv(Map.of()),
                    new ConfigSource(config, null, null),
                    null,
                    "n",
                    kubelet.kubeletSocket(),
                    null,
                    Duration.ZERO,
                    Duration.ofMillis(100))
                .start()) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> kubelet.devices("nvidia.com/gpu").size() == 8);

      Files.writeString(
          config,
          """
          version: v1
          sharing:
            timeSlicing:
              resources: [{name: nvidia.com/gpu, replicas: 2}]
          """);
      touch(config, 1);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> kubelet.devices("nvidia.com/gpu").size() == 16);

      Files.writeString(config, "version: v2\n");
      touch(config, 2);
      Thread.sleep(1000);
      assertThat(kubelet.devices("nvidia.com/gpu")).hasSize(16);
      assertThat(runner.agent().settings().sharing().replicasOf("nvidia.com/gpu")).isEqualTo(2);
    }
  }

  /** Moves the modification time forward, as a coarse-grained file system might not. */
  private static void touch(Path file, int seconds) throws Exception {
    Files.setLastModifiedTime(
        file, FileTime.fromMillis(System.currentTimeMillis() + seconds * 1000L));
  }
}
