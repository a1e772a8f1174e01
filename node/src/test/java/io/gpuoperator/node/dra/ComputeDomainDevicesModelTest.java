package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ComputeDomainDevicesModelTest {
  private static final GpuFabric A = new GpuFabric("5c8a1d3e-0000-4000-8000-000000000001", 1);

  @Test
  void aNodeInACliqueOffersChannelZeroAndTheDaemonWithNvidiasAttributes() {
    var slices =
        ResourceSliceModel.build(
            ComputeDomainNames.DRIVER,
            "gb-0",
            ComputeDomainDevicesModel.devices(A.clique()),
            List.of(),
            2,
            ResourceApiVersion.V1);
    assertThat(slices).hasSize(1);
    JsonNode spec = Serialization.jsonMapper().valueToTree(slices.get(0)).path("spec");
    assertThat(slices.get(0).getMetadata().getName()).isEqualTo("gb-0-compute-domain.nvidia.com-0");
    assertThat(spec.path("driver").asText()).isEqualTo("compute-domain.nvidia.com");
    assertThat(spec.path("pool").path("name").asText()).isEqualTo("gb-0");
    JsonNode devices = spec.path("devices");
    assertThat(devices).hasSize(2);
    assertThat(devices.get(0).path("name").asText()).isEqualTo("channel-0");
    assertThat(devices.get(0).path("attributes").path("type").path("string").asText())
        .isEqualTo("channel");
    assertThat(devices.get(0).path("attributes").path("id").path("int").asLong()).isZero();
    assertThat(devices.get(1).path("name").asText()).isEqualTo("daemon-0");
    assertThat(devices.get(1).path("attributes").path("type").path("string").asText())
        .isEqualTo("daemon");
    // v1beta1 nests the attributes under "basic", as for the GPU driver.
    JsonNode beta =
        Serialization.jsonMapper()
            .valueToTree(
                ResourceSliceModel.build(
                        ComputeDomainNames.DRIVER,
                        "gb-0",
                        ComputeDomainDevicesModel.devices(A.clique()),
                        List.of(),
                        1,
                        ResourceApiVersion.V1BETA1)
                    .get(0))
            .path("spec")
            .path("devices");
    assertThat(beta.get(0).path("basic").path("attributes").path("type").path("string").asText())
        .isEqualTo("channel");
  }

  @Test
  void aNodeWithoutACliqueOffersNothing() {
    assertThat(ComputeDomainDevicesModel.devices("")).isEmpty();
    assertThat(ComputeDomainDevicesModel.devices(null)).isEmpty();
    assertThat(ComputeDomainDevicesModel.clique(List.of(Optional.empty(), Optional.empty())))
        .isEmpty();
  }

  @Test
  void theCliqueIsTheGpusOneAndTwoCliquesAreAnError() {
    assertThat(ComputeDomainDevicesModel.clique(List.of(Optional.of(A), Optional.of(A))))
        .contains("5c8a1d3e-0000-4000-8000-000000000001.1");
    GpuFabric other = new GpuFabric("5c8a1d3e-0000-4000-8000-000000000001", 2);
    assertThatThrownBy(
            () -> ComputeDomainDevicesModel.clique(List.of(Optional.of(A), Optional.of(other))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("2 NVLink fabric cliques")
        .hasMessageContaining(".1, ")
        .hasMessageContaining(".2");
  }

  @Test
  void simulatedGb200sAreInTheSimulatedRacksCliqueAndH100sInNone() {
    try (SimulatedBackend gb =
            DeviceInventoryModelTest.backend("gpus: [{model: GB200-186GB, count: 4}]\n");
        SimulatedBackend h100 =
            DeviceInventoryModelTest.backend("gpus: [{model: H100-SXM5-80GB, count: 2}]\n")) {
      assertThat(
              ComputeDomainDevicesModel.clique(
                  gb.devices().stream().map(GpuDevice::index).map(gb::fabric).toList()))
          .contains(SimulatedBackend.SIMULATED_FABRIC.clique());
      assertThat(h100.fabric(0)).isEmpty();
    }
  }

  @Test
  void channelNumbersAreReadFromDeviceNames() {
    assertThat(ComputeDomainDevicesModel.channelNumber("channel-0")).isZero();
    assertThat(ComputeDomainDevicesModel.channelNumber("channel-2047")).isEqualTo(2047);
    assertThat(ComputeDomainDevicesModel.channelNumber("daemon-0")).isEqualTo(-1);
    assertThat(ComputeDomainDevicesModel.channelNumber("channel-x")).isEqualTo(-1);
  }
}
