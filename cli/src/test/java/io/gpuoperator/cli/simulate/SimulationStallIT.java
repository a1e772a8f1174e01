package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 19.6: the API server stalls (SIGSTOP) for 70 s, longer than the controller-manager's 40 s
 * node-monitor grace period, then continues (SIGCONT). The node-lifecycle controller marks the
 * nodes and their pods not ready; the simulated kubelets must post node status and pod readiness
 * again, as real kubelets do, so the cluster becomes ready again without help.
 */
class SimulationStallIT {
  private static final Logger LOG = LoggerFactory.getLogger(SimulationStallIT.class);

  @Test
  void theClusterIsReadyAgainAfterTheApiServerStalledFor70Seconds() throws Exception {
    try (Simulation sim =
        Simulation.builder()
            .nodes(
                List.of(
                    NodeDescription.gpuNode("stall-gpu", "H100-SXM5-80GB", 2),
                    NodeDescription.cpuNode("stall-cpu")))
            .nodeMonitorGracePeriod("40s")
            .start()) {
      SimulationStatus ready = sim.awaitReady(Duration.ofMinutes(3), s -> {});
      assertThat(ready.ready()).as("ready before the stall: %s", ready.reasons()).isTrue();

      // Every node condition change from now on, for the log: what the node-lifecycle controller
      // did once it saw the stale reports, and when the kubelets answered.
      Set<String> transitions = ConcurrentHashMap.newKeySet();
      var nodeWatch =
          sim.client()
              .nodes()
              .inform(
                  new io.fabric8.kubernetes.client.informers.ResourceEventHandler<Node>() {
                    @Override
                    public void onAdd(Node n) {}

                    @Override
                    public void onUpdate(Node old, Node n) {
                      String before = ready(old);
                      String after = ready(n);
                      if (!before.equals(after)) {
                        transitions.add(
                            java.time.Instant.now()
                                + " node "
                                + n.getMetadata().getName()
                                + " Ready "
                                + before
                                + " -> "
                                + after);
                      }
                    }

                    @Override
                    public void onDelete(Node n, boolean unknown) {}
                  });
      sim.controlPlane().signal("kube-apiserver", "STOP");
      try {
        Thread.sleep(Duration.ofSeconds(70).toMillis());
      } finally {
        sim.controlPlane().signal("kube-apiserver", "CONT");
      }

      // What the controllers do once they see the kubelets' stale reports (node Unknown, pods
      // not ready) is recorded for the log; then everything must come back without help.
      Set<String> seen = ConcurrentHashMap.newKeySet();
      await()
          .pollDelay(Duration.ofSeconds(20))
          .pollInterval(Duration.ofSeconds(2))
          .atMost(Duration.ofMinutes(4))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                for (Node n : sim.client().nodes().list().getItems()) {
                  for (NodeCondition c : n.getStatus().getConditions()) {
                    if (c.getType().equals("Ready") && !c.getStatus().equals("True")) {
                      seen.add("node " + n.getMetadata().getName() + " Ready=" + c.getStatus());
                    }
                  }
                  assertThat(n.getStatus().getConditions())
                      .filteredOn(c -> c.getType().equals("Ready"))
                      .extracting(NodeCondition::getStatus)
                      .as("node %s", n.getMetadata().getName())
                      .containsExactly("True");
                }
                for (Pod p : sim.client().pods().inNamespace(sim.namespace()).list().getItems()) {
                  if ("Running".equals(p.getStatus().getPhase())) {
                    boolean podReady =
                        p.getStatus().getConditions().stream()
                            .anyMatch(
                                c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
                    if (!podReady) {
                      seen.add("pod " + p.getMetadata().getName() + " not ready");
                    }
                    assertThat(podReady).as("pod %s ready", p.getMetadata().getName()).isTrue();
                  }
                }
                SimulationStatus now = sim.status();
                assertThat(now.ready()).as("ready again: %s", now.reasons()).isTrue();
              });
      nodeWatch.close();
      LOG.info(
          "while recovering from the stall: {}; node transitions: {}",
          seen,
          new java.util.TreeSet<>(transitions));
    }
  }

  private static String ready(Node n) {
    if (n == null || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return "none";
    }
    return n.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .map(NodeCondition::getStatus)
        .findFirst()
        .orElse("none");
  }
}
