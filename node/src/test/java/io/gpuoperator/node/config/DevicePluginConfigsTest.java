package io.gpuoperator.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
                DevicePluginConfigs.parse("version: v1\nflags:\n  migStrategy: both\n", "dp.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("dp.yaml:3:")
        .hasMessageContaining("flags: migStrategy: unknown value 'both'");
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
        .hasMessageStartingWith("dp.yaml:6:")
        .hasMessageContaining(
            "sharing.timeSlicing.resources[0]: replicas: number of replicas must be >= 2");
    assertThatThrownBy(() -> DevicePluginConfigs.parse("version: v2\n", "dp.yaml"))
        .hasMessage("dp.yaml: version: unknown version 'v2' (expected v1)");
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    "version: v1\nsharing:\n  timeSlicing:\n    resources:\n      - {name: nvidia.com/gpu, replicas: four}\n",
                    "dp.yaml"))
        .hasMessageStartingWith("dp.yaml:5:")
        .hasMessageContaining("replicas");
    assertThatThrownBy(
            () ->
                DevicePluginConfigs.parse(
                    "version: v1\nflags: {gfd: {sleepInterval: soon}}\n", "dp.yaml"))
        .hasMessageContaining("sleepInterval: invalid duration 'soon'");
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
