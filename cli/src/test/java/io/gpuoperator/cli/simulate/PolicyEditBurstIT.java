package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 33 finding 6 on the simulator (real control plane, DaemonSet controller and scheduler,
 * simulated kubelets running our device plugin in-process): a burst of ClusterPolicy edits that
 * each change the device plugin's env is written to its DaemonSet a few times (once per settle
 * window, DAEMONSET_SETTLE_WINDOW, 5 s by default), not once per edit, ends on the last edit, and
 * the rolling updates (maxSurge 1, maxUnavailable 0) never take a node's GPUs out of its
 * allocatable, as a watch on the Nodes sees them.
 */
class PolicyEditBurstIT {
  static final String H100 = "burst-h100";
  static final String L4 = "burst-l4";
  static final String GPU = "nvidia.com/gpu";
  static final String DEVICE_PLUGIN = "nvidia-device-plugin-daemonset";
  static final int EDITS = 200; // the burst: 200 edits in 32 s
  static final Duration BETWEEN_EDITS = Duration.ofMillis(160);

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.of(
          b ->
              SimulationFixture.recovering(b, Duration.ofSeconds(1), Duration.ofSeconds(4))
                  .policy(Simulation.defaultPolicy("single"), "PolicyEditBurstIT policy"),
          NodeDescription.gpuNode(H100, "H100-SXM5-80GB", 8),
          NodeDescription.gpuNode(L4, "L4", 1));

  @Test
  void aBurstOfEditsRollsTheDevicePluginAFewTimesAndTheGpusStayAllocatable() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
    Map<String, Long> expected = Map.of(H100, 8L, L4, 1L);
    expected.forEach((node, n) -> assertThat(SIM.allocatable(node, GPU)).isEqualTo(n));
    long before = SIM.daemonSet(DEVICE_PLUGIN).getMetadata().getGeneration();

    Map<String, Long> fewest = new ConcurrentHashMap<>(expected);
    try (Watch watch = SIM.client().nodes().watch(new FewestAllocatable(fewest))) {
      long started = System.nanoTime();
      for (int i = 1; i <= EDITS; i++) {
        String patch =
            "{\"spec\":{\"devicePlugin\":{\"env\":[{\"name\":\"BURST_EDIT\",\"value\":\""
                + i
                + "\"}]}}}";
        SIM.client()
            .resources(ClusterPolicy.class)
            .withName(SIM.sim().policyName())
            .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
        Thread.sleep(BETWEEN_EDITS.toMillis());
      }
      long burstSeconds = Duration.ofNanos(System.nanoTime() - started).toSeconds() + 1;
      String last = Integer.toString(EDITS);
      await()
          .atMost(Duration.ofMinutes(3))
          .untilAsserted(
              () -> {
                DaemonSet ds = SIM.daemonSet(DEVICE_PLUGIN);
                assertThat(env(ds.getSpec().getTemplate().getSpec().getContainers().get(0)))
                    .containsEntry("BURST_EDIT", last);
                var s = ds.getStatus();
                assertThat(s.getObservedGeneration()).isEqualTo(ds.getMetadata().getGeneration());
                assertThat(s.getUpdatedNumberScheduled()).isEqualTo(2);
                assertThat(s.getNumberAvailable()).isEqualTo(2);
                assertThat(s.getDesiredNumberScheduled()).isEqualTo(2);
                List<Pod> pods = devicePluginPods();
                assertThat(pods).hasSize(2);
                assertThat(pods)
                    .allSatisfy(
                        p ->
                            assertThat(env(p.getSpec().getContainers().get(0)))
                                .containsEntry("BURST_EDIT", last));
              });
      long writes = SIM.daemonSet(DEVICE_PLUGIN).getMetadata().getGeneration() - before;
      System.out.printf(
          "PolicyEditBurstIT: %d edits in %d s -> %d device-plugin DaemonSet spec writes;"
              + " fewest allocatable GPUs seen: %s%n",
          EDITS, burstSeconds, writes, fewest);
      // One write at once, then at most one per 5 s window over the burst, and the last edit.
      assertThat(writes).isBetween(1L, burstSeconds / 5 + 2);
      Thread.sleep(2000); // node status writes after the last rollout reach the watch
    }
    assertThat(fewest).as("fewest allocatable GPUs per node during the burst").isEqualTo(expected);
  }

  private List<Pod> devicePluginPods() {
    return SIM
        .client()
        .pods()
        .inNamespace(SIM.sim().namespace())
        .withLabel("app", DEVICE_PLUGIN)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static Map<String, String> env(io.fabric8.kubernetes.api.model.Container c) {
    Map<String, String> out = new java.util.HashMap<>();
    if (c.getEnv() != null) {
      for (EnvVar e : c.getEnv()) {
        out.put(e.getName(), e.getValue() == null ? "" : e.getValue());
      }
    }
    return out;
  }

  /** Keeps, per node, the fewest allocatable GPUs any Node event showed. */
  private record FewestAllocatable(Map<String, Long> fewest) implements Watcher<Node> {
    @Override
    public void eventReceived(Action action, Node node) {
      String name = node.getMetadata().getName();
      if (!fewest.containsKey(name) || node.getStatus() == null) {
        return;
      }
      Map<String, Quantity> a = node.getStatus().getAllocatable();
      Quantity q = a == null ? null : a.get(GPU);
      long n = q == null ? 0 : q.getNumericalAmount().longValue();
      fewest.merge(name, n, Math::min);
    }

    @Override
    public void onClose(WatcherException cause) {}
  }
}
