package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.node.agent.HostedAgents;
import io.gpuoperator.node.mig.MigLabels;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Node-agents mode end to end on the simulator (real control plane, DaemonSet controller and
 * scheduler, simulated kubelets running {@code gpu-operator node-agents} in-process under the real
 * supervisor): one {@code nvidia-node-agents} DaemonSet instead of the agents' own, the per-node
 * deploy label stopping one hosted agent on one node, and the MIG manager's pause of the hosted
 * device plugin and feature discovery.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeAgentsIT {
  static final String H100 = "na-h100";
  static final String L4 = "na-l4";
  static final String CPU = "na-cpu";
  static final String GPU = "nvidia.com/gpu";

  static final String POLICY =
      Simulation.clusterPolicy(
          """
          mig:
            strategy: mixed
          dcgm:
            enabled: false
          """);

  /** The DaemonSets node-agents replaces. */
  static final List<String> HOSTED_DAEMONSETS =
      List.of(
          "nvidia-device-plugin-daemonset",
          "gpu-feature-discovery",
          "nvidia-dcgm-exporter",
          "nvidia-mig-manager");

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.of(
          b ->
              SimulationFixture.recovering(b, Duration.ofSeconds(2), Duration.ofSeconds(10))
                  .nodeAgents(true)
                  .policy(POLICY, "NodeAgentsIT policy"),
          NodeDescription.gpuNode(H100, "H100-SXM5-80GB", 8),
          NodeDescription.gpuNode(L4, "L4", 1),
          NodeDescription.cpuNode(CPU));

  @Test
  @Order(1)
  void policyBecomesReadyWithOneNodeAgentsDaemonSetInsteadOfTheAgentsOwn() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(4), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();
    assertThat(SIM.allocatable(H100, GPU)).isEqualTo(8);
    assertThat(SIM.allocatable(L4, GPU)).isEqualTo(1);
    assertThat(SIM.labels(H100)).containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
    assertThat(SIM.labels(L4)).containsEntry("nvidia.com/gpu.product", "NVIDIA-L4");
    List<String> daemonSets =
        SIM
            .client()
            .apps()
            .daemonSets()
            .inNamespace(SIM.sim().namespace())
            .list()
            .getItems()
            .stream()
            .map(d -> d.getMetadata().getName())
            .toList();
    assertThat(daemonSets).contains("nvidia-node-agents", "nvidia-operator-validator");
    assertThat(daemonSets).doesNotContainAnyElementsOf(HOSTED_DAEMONSETS);
    DaemonSet na = SIM.daemonSet("nvidia-node-agents");
    assertThat(na.getStatus().getNumberReady()).isEqualTo(2); // the GPU nodes, not the CPU node
    assertThat(nodeAgentsPod(CPU)).isNull();
    // Each hosted operand reports the node-agents DaemonSet's readiness.
    var operands = SIM.client().resources(ClusterPolicy.class).withName("cluster-policy").get();
    String statusYaml = Serialization.asYaml(operands.getStatus());
    assertThat(statusYaml).contains("node-agents").contains("device-plugin");
  }

  @Test
  @Order(2)
  void theDeployLabelStopsOnlyThatAgentOnThatNodeAndBringsItBack() {
    String dp = Labels.deploy("device-plugin");
    String pod = nodeAgentsPod(L4).getMetadata().getUid();
    SIM.label(L4, dp, "false");
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(() -> assertThat(SIM.allocatable(L4, GPU)).isZero());
    assertThat(HostedAgents.on(L4))
        .filteredOn(e -> e.name().equals("device-plugin"))
        .singleElement()
        .satisfies(e -> assertThat(e.stopped()).isTrue());
    // The others go on: same pod, feature discovery still running there, the H100 node untouched.
    assertThat(HostedAgents.on(L4))
        .filteredOn(e -> e.name().equals("feature-discovery"))
        .singleElement()
        .satisfies(e -> assertThat(e.stopped()).isFalse());
    assertThat(nodeAgentsPod(L4).getMetadata().getUid()).isEqualTo(pod);
    assertThat(SIM.allocatable(H100, GPU)).isEqualTo(8);

    SIM.label(L4, dp, "true");
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(() -> assertThat(SIM.allocatable(L4, GPU)).isEqualTo(1));
    assertThat(nodeAgentsPod(L4).getMetadata().getUid()).isEqualTo(pod);
  }

  @Test
  @Order(3)
  void aMigChangePausesTheHostedClientsAndEndsWithTheNewGeometry() throws Exception {
    String dp = Labels.deploy("device-plugin");
    List<String> deployValues = new CopyOnWriteArrayList<>();
    List<Boolean> pluginStoppedWhilePaused = new CopyOnWriteArrayList<>();
    Watcher<Node> recorder =
        new Watcher<>() {
          @Override
          public void eventReceived(Action action, Node n) {
            String v = String.valueOf(n.getMetadata().getLabels().get(dp));
            deployValues.add(v);
          }

          @Override
          public void onClose(WatcherException cause) {}
        };
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                if (SIM.sim().backends().backend(H100).migMode(0).current()) {
                  // Once MIG is on, the geometry is changing or changed: the plugin is stopped
                  // until the clients are resumed.
                  HostedAgents.on(H100).stream()
                      .filter(e -> e.name().equals("device-plugin"))
                      .findFirst()
                      .ifPresent(e -> pluginStoppedWhilePaused.add(e.stopped()));
                  return;
                }
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    sampler.setDaemon(true);
    try (Watch w = SIM.client().nodes().withName(H100).watch(recorder)) {
      sampler.start();
      SIM.label(H100, MigLabels.CONFIG, "all-1g.10gb");
      await()
          .atMost(Duration.ofMinutes(4))
          .untilAsserted(
              () -> {
                assertThat(SIM.labels(H100)).containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
                assertThat(SIM.allocatable(H100, "nvidia.com/mig-1g.10gb")).isEqualTo(56);
              });
    } finally {
      sampler.interrupt();
    }
    assertThat(deployValues).contains(MigLabels.PAUSED);
    assertThat(pluginStoppedWhilePaused).containsExactly(true);
    assertThat(SIM.labels(H100)).containsEntry(dp, "true");
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () -> assertThat(SIM.labels(H100)).containsEntry("nvidia.com/mig-1g.10gb.count", "56"));
  }

  static Pod nodeAgentsPod(String node) {
    return SIM
        .client()
        .pods()
        .inNamespace(SIM.sim().namespace())
        .withLabel("app", "nvidia-node-agents")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .findFirst()
        .orElse(null);
  }
}
