package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.config.DevicePluginConfigs;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsResolverTest {
  private static final String FILE =
      """
      version: v1
      flags:
        migStrategy: mixed
        plugin:
          passDeviceSpecs: true
          deviceListStrategy: [cdi-annotations, cdi-cri]
      sharing:
        mps:
          resources:
            - {name: nvidia.com/gpu, replicas: 3}
        timeSlicing:
          renameByDefault: true
          resources:
            - {name: nvidia.com/gpu, replicas: 4}
      """;

  @Test
  void envBeatsFileBeatsDefaultAndMpsWinsWithItsDefaults() {
    var config =
        DevicePluginConfigs.parse(FILE.replace("migStrategy: mixed", "migStrategy: single"), "f");
    DevicePluginSettings s = SettingsResolver.resolve(config, Map.of("MIG_STRATEGY", "none"));
    assertThat(s.migStrategy()).isEqualTo(MigStrategy.NONE);
    assertThat(s.passDeviceSpecs()).isTrue();
    assertThat(s.deviceListStrategies())
        .containsExactly(DeviceListStrategy.CDI_ANNOTATIONS, DeviceListStrategy.CDI_CRI);
    assertThat(s.sharing().strategy()).isEqualTo(SharingStrategy.MPS);
    assertThat(s.sharing().replicasOf("nvidia.com/gpu")).isEqualTo(3);
    assertThat(s.sharing().failRequestsGreaterThanOne()).isTrue();
    assertThat(s.sharing().renameByDefault()).isFalse();

    DevicePluginSettings none = SettingsResolver.resolve(null, Map.of());
    assertThat(none).isEqualTo(DevicePluginSettings.defaults());
  }

  @Test
  void badEnvValuesNameTheVariable() {
    assertThatThrownBy(() -> SettingsResolver.resolve(null, Map.of("PASS_DEVICE_SPECS", "maybe")))
        .hasMessage("PASS_DEVICE_SPECS: expected true or false, got 'maybe'");
    assertThatThrownBy(
            () -> SettingsResolver.resolve(null, Map.of("DEVICE_LIST_STRATEGY", "envvar,bogus")))
        .hasMessageContaining("DEVICE_LIST_STRATEGY: unknown device list strategy 'bogus'");
    assertThat(
            SettingsResolver.resolve(null, Map.of("DEVICE_LIST_STRATEGY", "envvar,volume-mounts"))
                .deviceListStrategies())
        .isEqualTo(List.of(DeviceListStrategy.ENVVAR, DeviceListStrategy.VOLUME_MOUNTS));
  }
}
