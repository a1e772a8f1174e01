package io.gpuoperator.node.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.files.AtomicFile;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DaemonSet's lifecycle with the original container's environment: configure and write the CDI
 * spec, hold the pid file, revert both when told to stop.
 */
class ToolkitAgentTest {
  @TempDir Path dir;

  @Test
  void configuresWaitsAndRevertsOnStop() throws Exception {
    Path config = containerdConfig();
    ToolkitAgent agent = agent();
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch ready = new CountDownLatch(1);
    Thread t =
        new Thread(
            () -> {
              try {
                agent.run(stop, ready::countDown);
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    t.start();
    assertThat(ready.await(60, TimeUnit.SECONDS)).isTrue();

    Path dropIn = dir.resolve("etc/containerd/conf.d/99-nvidia.toml");
    Path spec = dir.resolve("var/run/cdi/management.nvidia.com-gpu.yaml");
    Path pid = dir.resolve("run/nvidia/toolkit/toolkit.pid");
    assertThat(Files.readString(config))
        .contains("imports = [\"/etc/containerd/conf.d/99-nvidia.toml\"]");
    assertThat(Files.readString(dropIn))
        .contains("runtimes.nvidia-cdi]", "enable_cdi = true")
        .doesNotContain("default_runtime_name = \"nvidia\"");
    assertThat(Files.readString(spec)).contains("kind: \"management.nvidia.com/gpu\"");
    assertThat(Files.readString(pid).trim())
        .isEqualTo(Long.toString(ProcessHandle.current().pid()));
    assertThatThrownBy(() -> agent.run(new CountDownLatch(0), () -> {}))
        .hasMessageContaining("another toolkit holds /run/nvidia/toolkit/toolkit.pid");

    stop.countDown();
    t.join(60_000);

    assertThat(Files.readString(config)).isEqualTo(ContainerdComponentTest.V2_CONFIG);
    assertThat(dropIn).doesNotExist();
    assertThat(spec).doesNotExist();
    assertThat(pid).doesNotExist();
  }

  /**
   * The simulator's form: {@code start} configures and returns, holding the pid file without a
   * thread waiting; closing reverts exactly as the stop signal does.
   */
  @Test
  void startConfiguresAndClosingReverts() throws Exception {
    Path config = containerdConfig();
    ToolkitAgent agent = agent();
    CountDownLatch ready = new CountDownLatch(1);
    Path dropIn = dir.resolve("etc/containerd/conf.d/99-nvidia.toml");
    Path pid = dir.resolve("run/nvidia/toolkit/toolkit.pid");

    AutoCloseable running = agent.start(ready::countDown);

    assertThat(ready.getCount()).isZero();
    assertThat(Files.readString(dropIn)).contains("runtimes.nvidia-cdi]");
    assertThat(Files.readString(pid).trim())
        .isEqualTo(Long.toString(ProcessHandle.current().pid()));
    assertThatThrownBy(() -> agent.start(() -> {}))
        .hasMessageContaining("another toolkit holds /run/nvidia/toolkit/toolkit.pid");
    running.close();
    assertThat(Files.readString(config)).isEqualTo(ContainerdComponentTest.V2_CONFIG);
    assertThat(dropIn).doesNotExist();
    assertThat(pid).doesNotExist();
    // Released: a new start may configure the node again.
    agent.start(() -> {}).close();
  }

  /** A node with containerd's v2 config and a driver root, as the agent finds them. */
  private Path containerdConfig() throws Exception {
    Path config = dir.resolve("etc/containerd/config.toml");
    Files.createDirectories(config.getParent());
    Files.writeString(config, ContainerdComponentTest.V2_CONFIG);
    Files.createDirectories(dir.resolve("run/nvidia/driver"));
    return config;
  }

  /** The agent with the original container's environment, configuring the file without restart. */
  private ToolkitAgent agent() {
    Map<String, String> env = new HashMap<>(ToolkitSettingsTest.originalEnv());
    env.put("RUNTIME_RESTART_MODE", "none");
    env.put("RUNTIME_CONFIG_SOURCE", "file");
    env.put("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver");
    // The container's paths, mapped into this test's directory as the pod's mounts would.
    Map<String, String> mounts =
        Map.of(
            "/runtime/config-dir", "etc/containerd",
            "/runtime/config-dir.d", "etc/containerd/conf.d",
            "/", "");
    ToolkitSettings s = ToolkitSettings.resolve(Map.of(), env);
    SimulatedBackend gpus = new SimulatedBackend(HardwareProfiles.node("dgx-h100"), "n");
    return new ToolkitAgent(
        s, p -> local(mounts, p), root -> gpus, AtomicFile.BeforeRename.NONE, 1, Duration.ZERO);
  }

  private Path local(Map<String, String> mounts, String path) {
    String best = "/";
    for (String m : mounts.keySet()) {
      if ((path.equals(m) || path.startsWith(m + "/")) && m.length() > best.length()) {
        best = m;
      }
    }
    String rest = best.equals("/") ? path.substring(1) : path.substring(best.length());
    Path base = dir.resolve(mounts.get(best));
    return rest.isEmpty() ? base : base.resolve(rest.startsWith("/") ? rest.substring(1) : rest);
  }
}
