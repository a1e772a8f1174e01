package io.gpuoperator.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.GoDuration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DevicePluginConfigsTest {

  @Test
  void parsesTheOriginalsExampleWithSharing() {
    DevicePluginConfig c =
        DevicePluginConfigs.parse(
            """
            version: v1
            flags:
              migStrategy: mixed
              failOnInitError: true
              plugin:
                passDeviceSpecs: true
                deviceListStrategy: [envvar, cdi-annotations]
                deviceIDStrategy: index
              gfd: {oneshot: false, noTimestamp: true, sleepInterval: 30s}
            sharing:
              timeSlicing:
                renameByDefault: true
                resources:
                  - name: nvidia.com/gpu
                    replicas: 4
                    devices: ["0", "GPU-abc"]
            """,
            "cfg.yaml");
    assertThat(c.flags().migStrategy()).isEqualTo("mixed");
    assertThat(c.flags().plugin().deviceListStrategy())
        .containsExactly("envvar", "cdi-annotations");
    assertThat(c.flags().plugin().deviceIdStrategy()).isEqualTo("index");
    assertThat(GoDuration.parse(c.flags().gfd().sleepInterval())).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.sharingStrategy()).isEqualTo("time-slicing");
    assertThat(c.replicasFor("nvidia.com/gpu")).isEqualTo(4);
    assertThat(c.replicasFor("nvidia.com/mig-1g.10gb")).isEqualTo(1);
    assertThat(c.renamedFor("nvidia.com/gpu")).isTrue();
    // Per-resource device lists are parsed but, as in the original, every device is replicated.
    assertThat(c.activeSharing().resources().get(0).devices().all()).isTrue();
  }

  @Test
  void singleStringDeviceListStrategyAndMpsWins() {
    DevicePluginConfig c =
        DevicePluginConfigs.parse(
            """
            version: v1
            flags: {plugin: {deviceListStrategy: volume-mounts}}
            sharing:
              timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}
              mps: {resources: [{name: nvidia.com/gpu, replicas: 3}]}
            """,
            "c.yaml");
    assertThat(c.flags().plugin().deviceListStrategy()).containsExactly("volume-mounts");
    assertThat(c.sharingStrategy()).isEqualTo("mps");
    assertThat(c.replicasFor("nvidia.com/gpu")).isEqualTo(3);
    assertThat(DevicePluginConfigs.empty().sharingStrategy()).isEqualTo("none");
  }

  @Test
  void badValuesNameFileLineAndField() {
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    "version: v1\nflags:\n  deviceDiscoveryStrategy: both\n", "dp.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "dp.yaml:3:3 flags.deviceDiscoveryStrategy: unknown value \"both\"; expected auto,"
                + " nvml or tegra");
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    """
                    version: v1
                    sharing:
                      timeSlicing:
                        resources:
                          - name: nvidia.com/gpu
                            replicas: 1
                    """,
                    "dp.yaml"))
        .hasMessage(
            "dp.yaml:6:9 sharing.timeSlicing.resources[0].replicas: expected a whole number from"
                + " 2 to 1024, got 1 for nvidia.com/gpu");
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    "version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                        + "      - {name: nvidia.com/gpu, replicas: 2000000000}\n",
                    "dp.yaml"))
        .hasMessage(
            "dp.yaml:5:32 sharing.timeSlicing.resources[0].replicas: expected a whole number from"
                + " 2 to 1024, got 2000000000 for nvidia.com/gpu");
    assertThatThrownBy(() -> DevicePluginConfigs.parse("version: v2\n", "dp.yaml"))
        .hasMessage("dp.yaml:1:1 version: unknown version \"v2\"; expected v1");
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    "version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - {name: nvidia.com/gpu, replicas: four}\n",
                    "dp.yaml"))
        .hasMessage(
            "dp.yaml:5:32 sharing.timeSlicing.resources[0].replicas: expected a whole number, got"
                + " \"four\"");
  }

  @Test
  void unknownFieldsAreIgnoredLikeTheOriginal() {
    DevicePluginConfig c =
        DevicePluginConfigs.parse(
            "version: v1\nflags:\n  migStrategy: single\n  futureFlag: 3\n", "dp.yaml");
    assertThat(c.flags().migStrategy()).isEqualTo("single");
  }

  @Test
  void goDurations() {
    assertThat(GoDuration.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDuration.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(GoDuration.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("infinite")).isEqualTo(GoDuration.INFINITE);
    assertThat(GoDuration.format(Duration.ofSeconds(60))).isEqualTo("1m0s");
    for (String bad : List.of("60", "s", "1x", "-5s", "")) {
      assertThatThrownBy(() -> GoDuration.parse(bad)).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
