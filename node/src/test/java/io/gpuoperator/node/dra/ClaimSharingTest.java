package io.gpuoperator.node.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The opaque GpuConfig / MigDeviceConfig parameters, written as NVIDIA's users write them. */
class ClaimSharingTest {
  private final SimulatedBackend backend =
      DeviceInventoryModelTest.backend(
          "gpus: [{model: H100-SXM5-80GB, count: 2},"
              + " {model: H100-SXM5-80GB, count: 1, mig: {enabled: true, devices: {1g.10gb: 1}}}]\n");
  private final DeviceInventory inventory =
      DeviceInventoryModel.build(
          DeviceInventoryModelTest.gpus(backend),
          new DeviceInventoryModel.Options(false, Set.of(), Set.of()));
  private final String mig =
      inventory.devices().stream().filter(DraDevice::isMig).findFirst().orElseThrow().name();

  @AfterEach
  void close() {
    backend.close();
  }

  private Map<String, Sharing> resolve(ClaimAllocation claim) {
    return ClaimSharing.resolve(claim, n -> inventory.device(n).orElseThrow());
  }

  @Test
  void timeSlicingForTheRequestItNames() {
    String config =
        """
        - source: FromClaim
          requests: [ts-gpu]
          opaque:
            driver: gpu.nvidia.com
            parameters:
              apiVersion: resource.nvidia.com/v1beta1
              kind: GpuConfig
              sharing:
                strategy: TimeSlicing
                timeSlicingConfig:
                  interval: Long
        """;
    var sharing = resolve(Claims.allocation("u1", config, "ts-gpu:gpu-0", "other:gpu-1"));
    assertThat(sharing.get("gpu-0"))
        .isEqualTo(new Sharing(Sharing.Strategy.TIME_SLICING, Sharing.Interval.LONG, null));
    assertThat(sharing.get("gpu-1")).isEqualTo(Sharing.DEFAULT);
  }

  @Test
  void mpsLimitsAndTheLaterEntryWins() {
    String config =
        """
        - source: FromClass
          opaque:
            driver: gpu.nvidia.com
            parameters: {apiVersion: resource.nvidia.com/v1beta1, kind: GpuConfig,
              sharing: {strategy: TimeSlicing}}
        - source: FromClaim
          opaque:
            driver: gpu.nvidia.com
            parameters:
              apiVersion: resource.nvidia.com/v1beta1
              kind: GpuConfig
              sharing:
                strategy: MPS
                mpsConfig:
                  defaultActiveThreadPercentage: 50
                  defaultPinnedDeviceMemoryLimit: 10Gi
                  defaultPerDevicePinnedMemoryLimit: {"1": 5Gi}
        - source: FromClaim
          opaque:
            driver: someone-else.example.com
            parameters: {anything: goes}
        """;
    var sharing = resolve(Claims.allocation("u2", config, "mps-gpu:gpu-0", "mps-gpu:gpu-1"));
    Sharing s = sharing.get("gpu-0");
    assertThat(s.strategy()).isEqualTo(Sharing.Strategy.MPS);
    assertThat(s.mps().activeThreadPercentage()).isEqualTo(50);
    assertThat(s.mps().pinnedMemoryLimitBytes()).isEqualTo(10L << 30);
    assertThat(s.mps().perDeviceLimitBytes()).containsEntry("1", 5L << 30);
  }

  @Test
  void aGpuConfigWithoutRequestsLeavesMigDevicesAloneAndMigDeviceConfigReachesThem() {
    String config =
        Claims.gpuConfig("{strategy: TimeSlicing, timeSlicingConfig: {interval: Short}}")
            + Claims.config("MigDeviceConfig", "{strategy: MPS}");
    var sharing = resolve(Claims.allocation("u3", config, "a:gpu-0", "b:" + mig));
    assertThat(sharing.get("gpu-0").interval()).isEqualTo(Sharing.Interval.SHORT);
    assertThat(sharing.get(mig).strategy()).isEqualTo(Sharing.Strategy.MPS);
  }

  @Test
  void badParametersNameTheClaimTheEntryAndTheField() {
    assertThatThrownBy(
            () ->
                resolve(
                    Claims.allocation(
                        "u4",
                        Claims.gpuConfig(
                            "{strategy: TimeSlicing, timeSlicingConfig: {interval: Fast}}"),
                        "r:gpu-0")))
        .hasMessage(
            "ResourceClaim ns/claim-u4: spec.devices.config[0]: opaque parameters:"
                + " sharing.timeSlicingConfig.interval: expected Default, Short, Medium or Long,"
                + " got \"Fast\"");
    assertThatThrownBy(
            () -> resolve(one("{strategy: MPS, mpsConfig: {defaultActiveThreadPercentage: 150}}")))
        .hasMessageContaining(
            "sharing.mpsConfig.defaultActiveThreadPercentage: expected an integer from 0 to 100,"
                + " got 150");
    assertThatThrownBy(() -> resolve(one("{strategy: Exclusive}")))
        .hasMessageContaining("sharing.strategy: expected TimeSlicing or MPS, got \"Exclusive\"");
    assertThatThrownBy(() -> resolve(one("{strategy: MPS, timeSlicingConfig: {interval: Long}}")))
        .hasMessageContaining("sharing.timeSlicingConfig: only allowed with strategy TimeSlicing");
    assertThatThrownBy(() -> resolve(one("{strategy: MPS, mpsConfig: {threads: 3}}")))
        .hasMessageContaining("sharing.mpsConfig.threads: unknown field");
    assertThatThrownBy(
            () ->
                resolve(one("{strategy: MPS, mpsConfig: {defaultPinnedDeviceMemoryLimit: lots}}")))
        .hasMessageContaining(
            "defaultPinnedDeviceMemoryLimit: expected a non-negative quantity like 10Gi");
    assertThatThrownBy(
            () ->
                resolve(
                    one(
                        "{strategy: MPS, mpsConfig: {defaultPerDevicePinnedMemoryLimit: {\"7\": 1Gi}}}")))
        .hasMessageContaining(
            "defaultPerDevicePinnedMemoryLimit[7]: not one of the claim's devices");
  }

  @Test
  void wrongKindAndVersion() {
    assertThatThrownBy(
            () ->
                resolve(
                    Claims.allocation(
                        "u5",
                        """
                        - source: FromClaim
                          requests: [r]
                          opaque:
                            driver: gpu.nvidia.com
                            parameters: {apiVersion: resource.nvidia.com/v1beta1, kind: GpuConfig}
                        """,
                        "r:" + mig)))
        .hasMessageContaining("GpuConfig names request r, which was allocated MIG device")
        .hasMessageContaining("use MigDeviceConfig");
    assertThatThrownBy(
            () ->
                resolve(
                    Claims.allocation(
                        "u6",
                        """
                        - source: FromClaim
                          opaque:
                            driver: gpu.nvidia.com
                            parameters: {apiVersion: resource.nvidia.com/v1, kind: GpuConfig}
                        """,
                        "r:gpu-0")))
        .hasMessageContaining(
            "apiVersion: expected resource.nvidia.com/v1beta1, got \"resource.nvidia.com/v1\"");
    assertThatThrownBy(
            () ->
                resolve(
                    Claims.allocation(
                        "u7",
                        Claims.config(
                            "MigDeviceConfig",
                            "{strategy: TimeSlicing, timeSlicingConfig: {interval: Long}}"),
                        "r:" + mig)))
        .hasMessageContaining("sharing.timeSlicingConfig: not supported by MigDeviceConfig");
  }

  private static ClaimAllocation one(String sharing) {
    return Claims.allocation("bad", Claims.gpuConfig(sharing), "r:gpu-0");
  }
}
