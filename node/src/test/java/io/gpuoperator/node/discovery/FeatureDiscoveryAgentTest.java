package io.gpuoperator.node.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuoperator.node.config.ReloadingConfig;
import io.gpuoperator.node.gpu.sim.HardwareProfiles;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The labelling loop: wake-ups re-read a changed config; failures and stops keep the labels. */
class FeatureDiscoveryAgentTest {
  @TempDir Path dir;
  Path cfg;
  Path out;
  SimulatedBackend gpus;

  @BeforeEach
  void dgxA100() {
    cfg = dir.resolve("config.yaml");
    out = dir.resolve("features.d/gfd");
    gpus = new SimulatedBackend(HardwareProfiles.builtInNode("dgx-a100"), "n1");
  }

  /** The agent over {@link #gpus}, reading {@link #cfg} and writing its labels to {@link #out}. */
  private FeatureDiscoveryAgent agent() {
    return new FeatureDiscoveryAgent(
        gpus,
        new FeatureFileSink(out),
        "none",
        new ReloadingConfig(cfg),
        true,
        () -> "DGX A100",
        Clock.systemUTC());
  }

  @Test
  void wakeRereadsAChangedConfigAndBadConfigsOrFailedPassesKeepTheLabels() throws Exception {
    Files.writeString(cfg, "version: v1\n");
    FeatureDiscoveryAgent agent = agent();
    Thread loop =
        new Thread(
            () -> {
              try {
                agent.run(Duration.ofHours(1)); // only wake-ups run further passes
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    loop.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(out));
      assertThat(Files.readString(out)).contains("nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB\n");

      write(
          cfg,
          "version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 4}]\n",
          1);
      agent.wake();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> Files.readString(out).contains("gpu.product=NVIDIA-A100-SXM4-40GB-SHARED\n"));
      assertThat(Files.readString(out)).contains("nvidia.com/gpu.replicas=4\n");

      String shared = Files.readString(out);
      write(
          cfg,
          "version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 0}]\n",
          2);
      agent.wake(); // an invalid config: the last good one stays in use
      Thread.sleep(300);
      assertThat(Files.readString(out)).isEqualTo(shared);
      gpus.setLost(0, true); // a pass that fails outright publishes nothing
      agent.wake();
      Thread.sleep(300);
      assertThat(Files.readString(out)).isEqualTo(shared);
    } finally {
      agent.stop();
      loop.join(5_000);
    }
    assertThat(loop.isAlive()).isFalse();
    assertThat(out).exists(); // never removed on stop
  }

  private static void write(Path file, String text, int tick) throws Exception {
    Files.writeString(file, text);
    // Make the change visible even on file systems with coarse timestamps.
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(tick)));
  }

  /**
   * The simulator's form: passes every interval on the shared agent threads, a changed config
   * picked up by the next one, and none after close.
   */
  @Test
  void startedPassesRepeatEveryIntervalAndStopWhenClosed() throws Exception {
    Files.writeString(cfg, "version: v1\n");
    FeatureDiscoveryAgent agent = agent();
    agent.pass();
    AutoCloseable passes = agent.startPasses(Duration.ofMillis(200), "fd-test");
    write(
        cfg,
        "version: v1\nsharing:\n  timeSlicing:\n    resources: [{name: nvidia.com/gpu, replicas: 4}]\n",
        1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.readString(out).contains("gpu.product=NVIDIA-A100-SXM4-40GB-SHARED\n"));
    passes.close();
    Thread.sleep(300); // a pass that was running when closed may still end
    Files.delete(out);
    Thread.sleep(600); // three intervals
    assertThat(out).doesNotExist();
  }
}
