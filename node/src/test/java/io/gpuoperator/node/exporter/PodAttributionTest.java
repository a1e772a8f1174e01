package io.gpuoperator.node.exporter;

import static io.gpuoperator.node.exporter.PodResourcesStub.of;
import static io.gpuoperator.node.exporter.PodResourcesStub.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.kubelet.podresources.v1.ClaimResource;
import io.gpuoperator.kubelet.podresources.v1.ContainerResources;
import io.gpuoperator.kubelet.podresources.v1.DynamicResource;
import io.gpuoperator.kubelet.podresources.v1.PodResources;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PodAttributionTest {
  final GpuBackend gpus = new SimulatedBackend(HardwareProfiles.node("dgx-h100-mig-mixed"), "n1");
  final NodeReading reading = new GpuReader(gpus, DeviceSelection.FLEX, g -> 0).read();
  final PodAttribution attribution = new PodAttribution(Set.of("example.com/gpu"));

  @Test
  void mapsWholeGpusMigDevicesReplicasAndDraClaims() {
    String gpu0 = gpus.device(0).uuid();
    MigDevice mig = gpus.migDevices(1).get(2);
    var answer =
        of(
            pod("ml", "train", "main", "nvidia.com/gpu", List.of(gpu0)),
            pod("ml", "infer", "server", "nvidia.com/mig-1g.10gb", List.of(mig.uuid())),
            pod("ml", "a", "c", "nvidia.com/gpu.shared", List.of(gpus.device(2).uuid() + "::0")),
            pod("ml", "b", "c", "nvidia.com/gpu.shared", List.of(gpus.device(2).uuid() + "::3")),
            pod("ml", "legacy", "c", "nvidia.com/gpu", List.of("nvidia3")),
            pod("ml", "custom", "c", "example.com/gpu", List.of(gpus.device(4).uuid())),
            pod("ml", "nic", "c", "example.com/nic", List.of(gpus.device(5).uuid())),
            PodResources.newBuilder()
                .setName("dra")
                .setNamespace("ml")
                .addContainers(
                    ContainerResources.newBuilder()
                        .setName("c")
                        .addDynamicResources(
                            DynamicResource.newBuilder()
                                .setClaimName("gpu-claim")
                                .setClaimNamespace("ml")
                                .addClaimResources(
                                    ClaimResource.newBuilder()
                                        .setDriverName("gpu.nvidia.com")
                                        .setPoolName("n1")
                                        .setDeviceName(
                                            GpuReader.draName(
                                                gpus.device(6), gpus.migDevices(6).get(0))))))
                .build());
    Map<DeviceKey, List<PodRef>> h = attribution.holders(answer, reading.deviceIds());
    assertThat(h.get(DeviceKey.gpu(0))).containsExactly(new PodRef("train", "ml", "main", null));
    assertThat(h.get(new DeviceKey(1, mig.gpuInstanceId())))
        .containsExactly(new PodRef("infer", "ml", "server", null));
    assertThat(h.get(DeviceKey.gpu(2)))
        .containsExactly(new PodRef("a", "ml", "c", "0"), new PodRef("b", "ml", "c", "3"));
    assertThat(h.get(DeviceKey.gpu(3))).containsExactly(new PodRef("legacy", "ml", "c", null));
    assertThat(h.get(DeviceKey.gpu(4))).containsExactly(new PodRef("custom", "ml", "c", null));
    assertThat(h).doesNotContainKey(DeviceKey.gpu(5));
    assertThat(h.get(new DeviceKey(6, gpus.migDevices(6).get(0).gpuInstanceId())))
        .containsExactly(new PodRef("dra", "ml", "c", null));
  }

  @Test
  void devicesOfAnotherInventoryAreIgnored() {
    var answer = of(pod("ml", "x", "c", "nvidia.com/gpu", List.of("GPU-not-here")));
    assertThat(attribution.holders(answer, reading.deviceIds())).isEmpty();
  }
}
