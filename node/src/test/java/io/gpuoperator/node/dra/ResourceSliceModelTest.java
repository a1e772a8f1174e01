package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResourceSliceModelTest {

  private static JsonNode spec(GenericKubernetesResource r) {
    return Serialization.jsonMapper().valueToTree(r).path("spec");
  }

  @Test
  void countersAndDevicesGoToSeparateSlicesWithinTheApiServersLimits() {
    try (var b =
        DeviceInventoryModelTest.backend(
            "gpus: [{model: H100-SXM5-80GB, count: 9, mig: {enabled: true}}]\n")) {
      DeviceInventory inv =
          DeviceInventoryModel.build(
              DeviceInventoryModelTest.gpus(b),
              new DeviceInventoryModel.Options(true, Set.of(), Set.of()));
      assertThat(inv.devices()).hasSize(9 * 25);
      List<GenericKubernetesResource> slices =
          ResourceSliceModel.build("node-a", inv, 3, ResourceApiVersion.V1);
      // 9 counter sets: 8 + 1; 225 devices consuming counters: 64 + 64 + 64 + 33.
      assertThat(slices).hasSize(6);
      assertThat(spec(slices.get(0)).path("sharedCounters")).hasSize(8);
      assertThat(spec(slices.get(1)).path("sharedCounters")).hasSize(1);
      assertThat(spec(slices.get(1)).has("devices")).isFalse();
      assertThat(spec(slices.get(2)).path("devices")).hasSize(64);
      assertThat(spec(slices.get(5)).path("devices")).hasSize(33);
      for (int i = 0; i < slices.size(); i++) {
        JsonNode s = spec(slices.get(i));
        assertThat(slices.get(i).getMetadata().getName()).isEqualTo("node-a-gpu.nvidia.com-" + i);
        assertThat(s.path("driver").asText()).isEqualTo("gpu.nvidia.com");
        assertThat(s.path("nodeName").asText()).isEqualTo("node-a");
        assertThat(s.path("pool").path("name").asText()).isEqualTo("node-a");
        assertThat(s.path("pool").path("generation").asLong()).isEqualTo(3);
        assertThat(s.path("pool").path("resourceSliceCount").asLong()).isEqualTo(6);
      }
      JsonNode device = spec(slices.get(2)).path("devices").get(0);
      assertThat(device.path("consumesCounters").get(0).path("counterSet").asText())
          .isEqualTo("gpu-0-counters");
      assertThat(device.path("attributes").path("type").path("string").asText()).isEqualTo("mig");
    }
  }

  @Test
  void v1beta1WrapsDevicesInBasicAndAnEmptyNodeStillHasItsPool() {
    try (var b = DeviceInventoryModelTest.backend("gpus: [{model: L4, count: 2}]\n")) {
      DeviceInventory inv =
          DeviceInventoryModel.build(
              DeviceInventoryModelTest.gpus(b), DeviceInventoryModel.Options.plain());
      var slices = ResourceSliceModel.build("l4", inv, 1, ResourceApiVersion.V1BETA1);
      assertThat(slices.get(0).getApiVersion()).isEqualTo("resource.k8s.io/v1beta1");
      JsonNode d = spec(slices.get(0)).path("devices").get(0);
      assertThat(d.path("name").asText()).isEqualTo("gpu-0");
      assertThat(d.path("basic").path("attributes").path("productName").path("string").asText())
          .isEqualTo("NVIDIA L4");
      assertThat(d.has("attributes")).isFalse();
    }
    var empty =
        ResourceSliceModel.build(
            "cpu", new DeviceInventory(List.of(), List.of(), List.of()), 1, ResourceApiVersion.V1);
    assertThat(empty).hasSize(1);
    assertThat(spec(empty.get(0)).path("devices")).isEmpty();
  }
}
