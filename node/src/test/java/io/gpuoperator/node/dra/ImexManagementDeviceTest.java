package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The fabric-imex-mgmt capability, from the driver's proc files as NVIDIA's plugin reads them. */
class ImexManagementDeviceTest {
  static final String CAP = "/proc/driver/nvidia/capabilities/fabric-imex-mgmt";

  @Test
  void theMinorAndModeComeFromTheCapabilityFileAndTheMajorFromTheDeviceList() {
    ImexManagementDevice d =
        ImexManagementDevice.parse(
            CAP,
            "DeviceFileMinor: 12\nDeviceFileMode: 256\nDeviceFileModify: 1\n",
            "/proc/devices",
            SimulatedBackend.PROC_DEVICES);
    assertThat(d)
        .isEqualTo(new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap12", 235, 12, 256));
  }

  @Test
  void whatIsMissingIsNamedWithItsFile() {
    assertThatThrownBy(
            () ->
                ImexManagementDevice.parse(
                    CAP, "DeviceFileMode: 256\n", "/proc/devices", SimulatedBackend.PROC_DEVICES))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(CAP + ": DeviceFileMinor: expected a number, got no such line");
    assertThatThrownBy(
            () ->
                ImexManagementDevice.parse(
                    CAP,
                    "DeviceFileMinor: x\nDeviceFileMode: 256\n",
                    "/proc/devices",
                    SimulatedBackend.PROC_DEVICES))
        .hasMessage(CAP + ": DeviceFileMinor: expected a number, got \"x\"");
    assertThatThrownBy(
            () ->
                ImexManagementDevice.parse(
                    CAP,
                    "DeviceFileMinor: 1\nDeviceFileMode: 256\n",
                    "/proc/devices",
                    "Character devices:\n195 nvidia\n\nBlock devices:\n"))
        .hasMessage(
            "/proc/devices lists no character device nvidia-caps: the NVIDIA driver loaded here"
                + " has no capability devices");
  }

  @Test
  void aSimulatedNodeHasTheSimulatedDriversCapabilityBesideItsDeviceList() {
    SimulatedBackend sim =
        new SimulatedBackend(
            HardwareProfiles.parseNode(
                "driverVersion: 570.124.06\ncudaVersion: \"12.8\"\n"
                    + "gpus: [{model: GB200-186GB, count: 1}]\n",
                "t"),
            "n");
    assertThat(ComputeDomainPlugin.imexManagement(sim, Path.of("/proc/devices")).get())
        .isEqualTo(new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap1", 235, 1, 256));
  }
}
