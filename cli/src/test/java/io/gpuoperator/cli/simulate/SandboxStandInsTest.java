package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.deviceplugin.PluginDevice;
import io.gpuoperator.node.gpu.PciDevices;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulator's stand-ins for NVIDIA's sandbox programs against a node's simulated sysfs: what
 * each leaves there is what the sandbox validator and the KubeVirt device plugin read.
 */
class SandboxStandInsTest {
  static final String LAYOUTS =
      """
      version: v1
      vgpu-configs:
        A100-10C:
        - devices: all
          vgpu-devices:
            A100-10C: 4
        mixed:
        - devices: [0]
          vgpu-devices: {A100-20C: 2}
        - devices: [1]
          vgpu-devices: {A100-5C: 8}
        too-big:
        - devices: all
          vgpu-devices: {A100-80C: 1}
      """;

  @TempDir Path sys;

  SimulatedSysfs node(String model, int gpus) throws Exception {
    try (SimulatedGpuBackends b =
        new SimulatedGpuBackends(List.of(NodeDescription.gpuNode("n", model, gpus)))) {
      SimulatedSysfs sysfs = new SimulatedSysfs(sys);
      sysfs.writePciDevices(b.backend("n").devices());
      return sysfs;
    }
  }

  @Test
  void kubevirtNamesFollowThePluginsRules() {
    // The original's own test cases of its name rule.
    assertThat(KubevirtResourceNames.clean("GK104GL [GRID K520]")).isEqualTo("GK104GL_GRID_K520");
    assertThat(KubevirtResourceNames.clean("gk104.gl [grid/k./520]"))
        .isEqualTo("GK104_GL_GRID_K__520");
    assertThat(KubevirtResourceNames.passthrough(0x2330))
        .isEqualTo("nvidia.com/GH100_H100_SXM5_80GB");
    assertThat(KubevirtResourceNames.passthrough(HardwareProfiles.builtIn("L4")))
        .isEqualTo("nvidia.com/AD104GL_L4");
    assertThat(KubevirtResourceNames.passthrough("A100-SXM4-40GB"))
        .isEqualTo("nvidia.com/GA100_A100_SXM4_40GB");
    // B300: not in the PCI ID database, so the plugin falls back to the device id.
    assertThat(KubevirtResourceNames.passthrough(HardwareProfiles.builtIn("B300-269GB")))
        .isEqualTo("nvidia.com/3182");
    assertThat(KubevirtResourceNames.vgpu("GRID P100X-1B")).isEqualTo("nvidia.com/GRID_P100X-1B");
    assertThat(KubevirtResourceNames.vgpu("NVIDIA A100-10C\n"))
        .isEqualTo("nvidia.com/NVIDIA_A100-10C");
  }

  @Test
  void vgpuTypesSplitTheFramebuffer() {
    assertThat(VgpuTypes.of(HardwareProfiles.builtIn("A100-SXM4-40GB")))
        .containsExactly(
            Map.entry("A100-40C", 1),
            Map.entry("A100-20C", 2),
            Map.entry("A100-10C", 4),
            Map.entry("A100-8C", 5),
            Map.entry("A100-5C", 8),
            Map.entry("A100-4C", 10));
    assertThat(VgpuTypes.framebufferGb(HardwareProfiles.builtIn("L4"))).isEqualTo(24);
    assertThat(VgpuTypes.framebufferGb(HardwareProfiles.builtIn("T4"))).isEqualTo(16);
    assertThat(VgpuTypes.of(HardwareProfiles.builtIn("L4"))).containsKeys("L4-24C", "L4-12C");
  }

  @Test
  void theVfioManagerBindsEveryGpuAndThePluginAdvertisesThemForPassthrough() throws Exception {
    SimulatedSysfs sysfs = node("H100-SXM5-80GB", 2);
    List<String> gpus = sysfs.nvidiaGpus();
    assertThat(gpus).hasSize(2);
    assertThat(KubevirtDevicePluginInProcessAgent.resources(sysfs)).isEmpty();

    VfioManagerInProcessAgent.bindAll(sysfs);
    for (String gpu : gpus) {
      // What the sandbox validator's vfio-pci step reads.
      assertThat(PciDevices.driver(sys, gpu)).isEqualTo("vfio-pci");
    }
    Map<String, List<PluginDevice>> resources = KubevirtDevicePluginInProcessAgent.resources(sysfs);
    assertThat(resources).containsOnlyKeys("nvidia.com/GH100_H100_SXM5_80GB");
    assertThat(resources.get("nvidia.com/GH100_H100_SXM5_80GB"))
        .extracting(PluginDevice::id)
        .containsExactlyElementsOf(gpus);
    assertThat(resources.get("nvidia.com/GH100_H100_SXM5_80GB").get(0).paths())
        .containsExactly("/dev/vfio/1");

    VfioManagerInProcessAgent.unbindAll(sysfs, gpus);
    assertThat(PciDevices.driver(sys, gpus.get(0))).isNull();
    assertThat(KubevirtDevicePluginInProcessAgent.resources(sysfs)).isEmpty();
  }

  @Test
  void theVgpuManagerMakesParentsAndTheDeviceManagerLaysOutVgpus() throws Exception {
    SimulatedSysfs sysfs = node("A100-SXM4-40GB", 2);
    List<String> gpus =
        VgpuManagerInProcessAgent.load(sysfs, HardwareProfiles.builtIn("A100-SXM4-40GB"));
    assertThat(sysfs.mdevParents()).containsExactlyElementsOf(gpus);
    assertThat(Files.list(sys.resolve("class/mdev_bus")).count()).isEqualTo(2);
    assertThat(PciDevices.driver(sys, gpus.get(0))).isEqualTo("nvidia");

    int created =
        VgpuDeviceManagerInProcessAgent.apply(
            sysfs, VgpuLayouts.select(LAYOUTS, "config.yaml", "A100-10C"));
    assertThat(created).isEqualTo(8);
    // What the sandbox validator's vgpu-devices step reads: each mdev's parent is an NVIDIA device.
    for (Path mdev : Files.list(sys.resolve("bus/mdev/devices")).toList()) {
      Path parent = mdev.toRealPath().getParent();
      assertThat(Files.readString(parent.resolve("vendor")).trim()).isEqualTo("0x10de");
    }
    assertThat(KubevirtDevicePluginInProcessAgent.resources(sysfs))
        .containsOnlyKeys("nvidia.com/NVIDIA_A100-10C")
        .extractingByKey("nvidia.com/NVIDIA_A100-10C")
        .asList()
        .hasSize(8);
    assertThat(sysfs.mdevTypes(gpus.get(0)).get("A100-10C").resolve("available_instances"))
        .hasContent("0\n");

    // Another layout replaces the devices of the GPUs it covers, per GPU index.
    assertThat(
            VgpuDeviceManagerInProcessAgent.apply(
                sysfs, VgpuLayouts.select(LAYOUTS, "config.yaml", "mixed")))
        .isEqualTo(10);
    assertThat(sysfs.mdevDevices())
        .filteredOn(m -> m.parent().equals(gpus.get(0)))
        .extracting(SimulatedSysfs.Mdev::type)
        .containsOnly("A100-20C")
        .hasSize(2);
    assertThat(sysfs.mdevTypes(gpus.get(0)).get("A100-10C").resolve("available_instances"))
        .hasContent("4\n");

    // A type the GPU does not offer fails before anything changes.
    assertThatThrownBy(
            () ->
                VgpuDeviceManagerInProcessAgent.apply(
                    sysfs, VgpuLayouts.select(LAYOUTS, "config.yaml", "too-big")))
        .hasMessageContaining("vGPU type A100-80C is not supported on GPU (index=0, address=")
        .hasMessageContaining("A100-40C");
    assertThat(sysfs.mdevDevices()).hasSize(10);

    VgpuManagerInProcessAgent.unload(sysfs, gpus);
    assertThat(sysfs.mdevParents()).isEmpty();
    assertThat(sysfs.mdevDevices()).isEmpty();
    assertThat(PciDevices.driver(sys, gpus.get(0))).isNull();
  }

  @Test
  void layoutErrorsNameTheFieldAndLine() {
    assertThatThrownBy(() -> VgpuLayouts.select(LAYOUTS, "config.yaml", "A100-4C"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("config.yaml:2:1 vgpu-configs: no config named A100-4C")
        .hasMessageContaining("[A100-10C, mixed, too-big]");
    assertThatThrownBy(
            () ->
                VgpuLayouts.select(
                    "version: v1\nvgpu-configs:\n  x:\n  - devices: all\n    vgpu-devices:"
                        + " {A100-4C: 0}\n",
                    "f",
                    "x"))
        .hasMessageContaining("vgpu-configs.x[0].vgpu-devices")
        .hasMessageContaining("the count of A100-4C must be a whole number from 1, got 0");
    assertThatThrownBy(() -> VgpuLayouts.select("version: v2\nvgpu-configs: {}\n", "f", "x"))
        .hasMessageContaining("version: expected v1");
    assertThatThrownBy(
            () ->
                VgpuLayouts.select(
                    "version: v1\nvgpu-configs:\n  x:\n  - devices: some\n    vgpu-devices: {a: 1}\n",
                    "f",
                    "x"))
        .hasMessageContaining("vgpu-configs.x[0].devices: expected all or a list of GPU indices");
  }
}
