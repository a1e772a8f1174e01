package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.agent.NodeAgentOptions;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pci-discovery on simulated hardware: the node profile's GPUs stand for the PCI devices. */
class PciDiscoveryCommandTest {
  @TempDir Path tmp;

  /** The value for the profile the command reads from this environment. */
  static String simulatedValue(Map<String, String> env) {
    return PciDiscoveryCommand.simulatedValue(NodeAgentOptions.profile(Settings.ofEnv(env), null));
  }

  @Test
  void aProfileWithGpusIsAGpuNode() throws Exception {
    Path profile =
        Files.writeString(
            tmp.resolve("node-profile.yaml"),
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpus:\n  - model: L4\n    count: 2\n");
    assertThat(
            simulatedValue(
                Map.of("GPU_BACKEND", "simulated", "GPU_NODE_PROFILE", profile.toString())))
        .isEqualTo("true");
    assertThat(PciDiscoveryCommand.simulatedValue(HardwareProfiles.node("dgx-h100-mig-mixed")))
        .as("MIG-partitioned GPUs are still GPUs")
        .isEqualTo("true");
  }

  @Test
  void aProfileWithoutGpusIsNoGpuNode() throws Exception {
    Path profile =
        Files.writeString(
            tmp.resolve("node-profile.yaml"),
            "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\ngpus: []\n");
    assertThat(
            simulatedValue(
                Map.of("GPU_BACKEND", "simulated", "GPU_NODE_PROFILE", profile.toString())))
        .isEqualTo("false");
  }

  @Test
  void theSimulatedBackendWithoutAProfileIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> simulatedValue(Map.of("GPU_BACKEND", "simulated")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("GPU_BACKEND: ")
        .hasMessageContaining("GPU_NODE_PROFILE");
  }
}
