package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The original toolkit container's environment configures our agent the same way. */
class ToolkitSettingsTest {
  /**
   * What the original operator renders for containerd with CDI on (operand-contracts.md 3.4,
   * "Default rendering").
   */
  static Map<String, String> originalEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("ROOT", "/usr/local/nvidia");
    env.put("NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND", "management.nvidia.com/gpu");
    env.put("NVIDIA_VISIBLE_DEVICES", "void");
    env.put("TOOLKIT_PID_FILE", "/run/nvidia/toolkit/toolkit.pid");
    env.put("CDI_ENABLED", "true");
    env.put("NVIDIA_RUNTIME_SET_AS_DEFAULT", "false");
    env.put("NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");
    env.put("CRIO_CONFIG_MODE", "config");
    env.put("RUNTIME", "containerd");
    env.put("CONTAINERD_RUNTIME_CLASS", "nvidia");
    env.put("RUNTIME_CONFIG", "/runtime/config-dir/config.toml");
    env.put("CONTAINERD_CONFIG", "/runtime/config-dir/config.toml");
    env.put("RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.toml");
    env.put("RUNTIME_DROP_IN_CONFIG_HOST_PATH", "/etc/containerd/conf.d/99-nvidia.toml");
    env.put("RUNTIME_SOCKET", "/runtime/sock-dir/containerd.sock");
    env.put("CONTAINERD_SOCKET", "/runtime/sock-dir/containerd.sock");
    return env;
  }

  @Test
  void theOriginalDaemonSetEnvironment() {
    ToolkitSettings s = ToolkitSettings.resolve(Map.of(), originalEnv());
    assertThat(s.runtime()).isEqualTo("containerd");
    assertThat(s.config()).isEqualTo("/runtime/config-dir/config.toml");
    assertThat(s.dropIn()).isEqualTo("/runtime/config-dir.d/99-nvidia.toml");
    assertThat(s.dropInHostPath()).isEqualTo("/etc/containerd/conf.d/99-nvidia.toml");
    assertThat(s.socket()).isEqualTo("/runtime/sock-dir/containerd.sock");
    assertThat(s.restartMode()).isEqualTo(RuntimeRestarter.Mode.SIGNAL);
    assertThat(s.setAsDefault()).isFalse();
    assertThat(s.cdiEnabled()).isTrue();
    assertThat(s.cdiKind()).isEqualTo("management.nvidia.com/gpu");
    assertThat(s.cdiOutputDir()).isEqualTo("/var/run/cdi");
    RuntimeSettings rs = s.runtimeSettings(true);
    assertThat(rs.runtimes())
        .containsExactly(
            Map.entry("nvidia", "/usr/local/nvidia/toolkit/nvidia-container-runtime"),
            Map.entry("nvidia-cdi", "/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi"),
            Map.entry(
                "nvidia-legacy", "/usr/local/nvidia/toolkit/nvidia-container-runtime.legacy"));
    assertThat(rs.dropInHostPath()).isEqualTo("/etc/containerd/conf.d/99-nvidia.toml");
  }

  @Test
  void flagsWinOverEnvironmentAndCrioHasItsOwnDefaults() {
    Map<String, String> env = new HashMap<>(Map.of("RUNTIME", "cri-o"));
    ToolkitSettings s =
        ToolkitSettings.resolve(Map.of(ToolkitSettings.Setting.RUNTIME_NAME, "gpu"), env);
    assertThat(s.runtime()).isEqualTo("crio");
    assertThat(s.config()).isEqualTo("/etc/crio/crio.conf");
    assertThat(s.dropIn()).isEqualTo("/etc/crio/crio.conf.d/99-nvidia.conf");
    assertThat(s.restartMode()).isEqualTo(RuntimeRestarter.Mode.SYSTEMD);
    assertThat(s.runtimeSettings(true).runtimes()).containsKeys("gpu", "nvidia-cdi");
    env.put("CRIO_CONFIG", "/host/etc/crio/crio.conf");
    env.put("RUNTIME_CONFIG", "/ignored.conf");
    assertThat(ToolkitSettings.resolve(Map.of(), env).config())
        .isEqualTo("/host/etc/crio/crio.conf");
  }

  @Test
  void whatThisToolkitDoesNotDoIsRefusedWithTheWayOut() {
    assertThatThrownBy(() -> ToolkitSettings.resolve(Map.of(), Map.of("RUNTIME", "docker")))
        .hasMessageStartingWith("RUNTIME: ")
        .hasMessageContaining("NVIDIA's toolkit image");
    assertThatThrownBy(
            () ->
                ToolkitSettings.resolve(
                    Map.of(), Map.of("RUNTIME", "crio", "CRIO_CONFIG_MODE", "hook")))
        .hasMessageContaining("CRIO_CONFIG_MODE")
        .hasMessageContaining("cdi.enabled=true");
    assertThatThrownBy(() -> ToolkitSettings.resolve(Map.of(), Map.of("ENABLE_NRI_PLUGIN", "true")))
        .hasMessageContaining("ENABLE_NRI_PLUGIN")
        .hasMessageContaining("nriPluginEnabled=false");
    assertThatThrownBy(() -> ToolkitSettings.resolve(Map.of(), Map.of("CDI_ENABLED", "maybe")))
        .hasMessage("CDI_ENABLED: expected true or false, got \"maybe\"");
    assertThatThrownBy(
            () -> ToolkitSettings.resolve(Map.of(), Map.of("RUNTIME_CONFIG_SOURCE", "socket")))
        .hasMessage(
            "RUNTIME_CONFIG_SOURCE: unknown config source \"socket\"; expected command and/or file");
    assertThatThrownBy(() -> ToolkitSettings.resolve(Map.of(), Map.of("CDI_KIND", "gpu")))
        .hasMessageStartingWith("CDI_KIND: ")
        .hasMessageContaining("<vendor>/<class>");
  }
}
