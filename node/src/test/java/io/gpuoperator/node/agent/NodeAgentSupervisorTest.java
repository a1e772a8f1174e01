package io.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The supervisor without node selectors (those are covered with a real API server by the
 * simulator's NodeAgentsIT): each agent restarted on its own, stopped by close.
 */
class NodeAgentSupervisorTest {
  static final NodeAgentSupervisor.Backoff FAST =
      new NodeAgentSupervisor.Backoff(
          Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofMinutes(10));

  @Test
  void anAgentThatEndsIsRestartedAloneAndCloseStopsTheOthers() {
    AtomicInteger shortRuns = new AtomicInteger();
    AtomicInteger longStarts = new AtomicInteger();
    AtomicInteger longEnds = new AtomicInteger();
    String node = "supervisor-test-node";
    var supervisor =
        new NodeAgentSupervisor(
            node,
            null,
            List.of(
                new NodeAgentSupervisor.Hosted("short", null, () -> shortRuns.incrementAndGet()),
                new NodeAgentSupervisor.Hosted(
                    "long",
                    null,
                    () -> {
                      longStarts.incrementAndGet();
                      try {
                        Thread.sleep(Long.MAX_VALUE);
                      } finally {
                        longEnds.incrementAndGet();
                      }
                      return 0;
                    })),
            FAST);
    supervisor.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> shortRuns.get() >= 3);
      assertThat(longStarts.get()).isEqualTo(1);
      assertThat(HostedAgents.on(node))
          .filteredOn(e -> e.name().equals("long"))
          .singleElement()
          .satisfies(e -> assertThat(e.stopped()).isFalse());
    } finally {
      supervisor.close();
    }
    assertThat(longEnds.get()).isEqualTo(1);
    assertThat(HostedAgents.on(node)).isEmpty();
  }

  @Test
  void selectorsNeedTheNodeAndTheApiServer() {
    assertThatThrownBy(
            () ->
                new NodeAgentSupervisor(
                    null,
                    null,
                    List.of(
                        new NodeAgentSupervisor.Hosted(
                            "device-plugin",
                            AgentSelector.parse("nvidia.com/gpu.deploy.device-plugin=true"),
                            () -> 0)),
                    FAST))
        .hasMessageContaining("NODE_NAME");
  }

  @Test
  void aHostedAgentTheLabelsStopIsAwaitedUntilItStops() throws Exception {
    String node = "await-test-node";
    HostedAgents.Entry e =
        HostedAgents.register(
            node, "device-plugin", AgentSelector.parse("nvidia.com/gpu.deploy.device-plugin=true"));
    try {
      e.stopped(false);
      Map<String, String> paused = Map.of("nvidia.com/gpu.deploy.device-plugin", "paused");
      assertThat(HostedAgents.stillRunning(node, paused)).containsExactly("device-plugin");
      assertThat(HostedAgents.awaitStopped(node, () -> paused, Duration.ofMillis(300))).isFalse();
      new Thread(
              () -> {
                try {
                  Thread.sleep(200);
                } catch (InterruptedException x) {
                  return;
                }
                e.stopped(true);
              })
          .start();
      assertThat(HostedAgents.awaitStopped(node, () -> paused, Duration.ofSeconds(10))).isTrue();
      // Where the labels still admit it, running is fine.
      e.stopped(false);
      assertThat(
              HostedAgents.awaitStopped(
                  node,
                  () -> Map.of("nvidia.com/gpu.deploy.device-plugin", "true"),
                  Duration.ofMillis(1)))
          .isTrue();
    } finally {
      HostedAgents.unregister(node, e);
    }
    assertThat(HostedAgents.awaitStopped("nothing-hosted", Map::of, Duration.ZERO)).isTrue();
  }
}
