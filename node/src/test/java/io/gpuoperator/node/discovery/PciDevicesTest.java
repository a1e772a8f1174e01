package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.PciDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PciDevicesTest {
  @TempDir Path sys;

  private void device(String address, String vendor, String cls) throws IOException {
    Path d = Files.createDirectories(sys.resolve("bus/pci/devices").resolve(address));
    Files.writeString(d.resolve("vendor"), vendor + "\n");
    Files.writeString(d.resolve("class"), cls + "\n");
  }

  @Test
  void nvidia3dAndVgaControllersAreGpusOtherNvidiaFunctionsAreNot() throws IOException {
    device("0000:00:03.0", "0x1af4", "0x020000"); // virtio NIC
    device("0000:17:00.1", "0x10de", "0x040300"); // NVIDIA HD audio function
    assertThat(PciDiscovery.value(PciDevices.scan(sys))).isEqualTo("false");

    device("0000:18:00.0", "0x10de", "0x030200"); // H100: 3D controller
    var devices = PciDevices.scan(sys);
    assertThat(devices)
        .extracting(PciDevices.Device::address)
        .containsExactly("0000:00:03.0", "0000:17:00.1", "0000:18:00.0");
    assertThat(PciDiscovery.value(devices)).isEqualTo("true");
  }

  @Test
  void vgaControllerCountsAndUnreadableDevicesAreSkipped() throws IOException {
    device("0000:01:00.0", "0x10de", "0x030000");
    Files.createDirectories(sys.resolve("bus/pci/devices/0000:02:00.0")); // no files
    assertThat(PciDevices.scan(sys)).hasSize(1).allMatch(PciDevices.Device::isNvidiaGpu);
  }

  @Test
  void missingSysfsNamesTheFolder() {
    assertThatThrownBy(() -> PciDevices.scan(sys.resolve("nothing")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("bus/pci/devices")
        .hasMessageContaining("is /sys mounted");
  }
}
