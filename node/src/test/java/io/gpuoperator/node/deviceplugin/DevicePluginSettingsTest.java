package io.gpuoperator.node.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Settings;
import io.gpuoperator.node.config.DevicePluginConfigs;
import io.gpuoperator.node.gpu.XidPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DevicePluginSettingsTest {
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
    var doc = Documents.parse(FILE.replace("migStrategy: mixed", "migStrategy: single"), "f");
    DevicePluginSettings s =
        DevicePluginSettings.resolve(
            Settings.ofEnv(Map.of("MIG_STRATEGY", "none")).withFile(doc),
            DevicePluginConfigs.parse(doc));
    assertThat(s.migStrategy()).isEqualTo(MigStrategy.NONE);
    assertThat(s.passDeviceSpecs()).isTrue();
    assertThat(s.deviceListStrategies())
        .containsExactly(DeviceListStrategy.CDI_ANNOTATIONS, DeviceListStrategy.CDI_CRI);
    assertThat(s.sharing().strategy()).isEqualTo(SharingStrategy.MPS);
    assertThat(s.sharing().replicasOf("nvidia.com/gpu")).isEqualTo(3);
    assertThat(s.sharing().failRequestsGreaterThanOne()).isTrue();
    assertThat(s.sharing().renameByDefault()).isFalse();

    DevicePluginSettings none = DevicePluginSettings.resolve(Settings.ofEnv(Map.of()), null);
    assertThat(none).isEqualTo(DevicePluginSettings.defaults());
  }

  @Test
  void badEnvValuesNameTheVariable() {
    assertThatThrownBy(() -> resolve(Map.of("PASS_DEVICE_SPECS", "maybe")))
        .hasMessage("PASS_DEVICE_SPECS: expected true or false, got \"maybe\"");
    assertThatThrownBy(() -> resolve(Map.of("DEVICE_LIST_STRATEGY", "envvar,bogus")))
        .hasMessage(
            "DEVICE_LIST_STRATEGY: unknown device list strategy \"bogus\"; expected envvar,"
                + " volume-mounts, cdi-annotations or cdi-cri");
    assertThat(
            resolve(Map.of("DEVICE_LIST_STRATEGY", "envvar,volume-mounts")).deviceListStrategies())
        .isEqualTo(List.of(DeviceListStrategy.ENVVAR, DeviceListStrategy.VOLUME_MOUNTS));
    assertThatThrownBy(() -> resolve(Map.of("CDI_ANNOTATION_PREFIX", "Not A Prefix")))
        .hasMessageStartingWith("CDI_ANNOTATION_PREFIX: expected a DNS subdomain followed by '/'");
    assertThatThrownBy(() -> XidPolicy.fromEnv(Map.of("DP_ENABLE_HEALTHCHECKS", "-1")))
        .hasMessageStartingWith("DP_ENABLE_HEALTHCHECKS: \"-1\" is not an XID");
  }

  @Test
  void theSameBadValueAsFlagEnvAndFileNamesItsSourceInOneStyle() {
    String problem = ": unknown MIG strategy \"sometimes\"; expected none, single or mixed";
    assertThatThrownBy(
            () ->
                DevicePluginSettings.resolve(
                    Settings.of(Map.of("--mig-strategy", "sometimes"), Map.of(), null), null))
        .hasMessage("--mig-strategy" + problem);
    assertThatThrownBy(() -> resolve(Map.of("MIG_STRATEGY", "sometimes")))
        .hasMessage("MIG_STRATEGY" + problem);
    var doc = Documents.parse("version: v1\nflags:\n  migStrategy: sometimes\n", "config.yaml");
    assertThatThrownBy(
            () ->
                DevicePluginSettings.resolve(
                    Settings.ofEnv(Map.of()).withFile(doc), DevicePluginConfigs.parse(doc)))
        .hasMessage("config.yaml:3:3 flags.migStrategy" + problem);
  }

  private static DevicePluginSettings resolve(Map<String, String> env) {
    return DevicePluginSettings.resolve(Settings.ofEnv(env), null);
  }
}
