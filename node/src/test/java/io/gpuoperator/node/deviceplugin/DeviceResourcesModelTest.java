package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.gpuoperator.node.gpu.sim.TestNodes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceResourcesModelTest {
  private static GpuInventory inventory(String yaml) {
    try (SimulatedBackend b = TestNodes.backend(yaml, "n")) {
      return GpuInventory.read(b, null);
    }
  }

  private static final String HALF_MIG =
      """
      gpus:
        - {model: A100-SXM4-40GB, count: 1, mig: {enabled: true, devices: {1g.5gb: 7}}}
        - {model: A100-SXM4-40GB, count: 1}
      """;

  @Test
  void singleRefusesMixedEnablementAndSeveralProfiles() {
    DevicePluginSettings single =
        DevicePluginSettings.defaults().withMigStrategy(MigStrategy.SINGLE);
    assertThatThrownBy(() -> DeviceResourcesModel.build(inventory(HALF_MIG), single))
        .hasMessage(
            "migStrategy single: GPUs [0] have MIG enabled but GPUs [1] do not; the single"
                + " strategy needs MIG on all GPUs or none (use mixed)");
    String twoProfiles =
        """
        gpus:
          - {model: A100-SXM4-40GB, count: 1, mig: {enabled: true, devices: {1g.5gb: 2, 3g.20gb: 1}}}
        """;
    assertThatThrownBy(() -> DeviceResourcesModel.build(inventory(twoProfiles), single))
        .hasMessageContaining("more than one MIG profile in use [1g.5gb, 3g.20gb]");
  }

  @Test
  void mixedKeepsWholeGpusBesideMigProfilesAndSharesByName() {
    DevicePluginSettings mixed =
        DevicePluginSettings.defaults()
            .withMigStrategy(MigStrategy.MIXED)
            .withSharing(
                new Sharing(
                    SharingStrategy.TIME_SLICING,
                    false,
                    false,
                    Map.of("nvidia.com/mig-1g.5gb", 2)));
    List<ResourceSet> r = DeviceResourcesModel.build(inventory(HALF_MIG), mixed);
    assertThat(r)
        .extracting(ResourceSet::name)
        .containsExactly("nvidia.com/gpu", "nvidia.com/mig-1g.5gb");
    assertThat(r.get(0).devices()).hasSize(1);
    assertThat(r.get(1).devices()).hasSize(14);
    assertThat(r.get(1).devices().get(1).id()).endsWith("::1");
    assertThat(r.get(1).devices().get(0).index()).isEqualTo("0:0");
    assertThat(r.get(1).socketName()).isEqualTo("nvidia-mig-1g.5gb.sock");
  }
}
