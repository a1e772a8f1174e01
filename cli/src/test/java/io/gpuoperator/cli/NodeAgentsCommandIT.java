package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.cli.simulate.ClusterOnNodes;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The real {@code gpu-operator node-agents} command (not the simulator's in-process stand-in) with
 * the real device plugin against a simulated node's kubelet sockets and a real API server: the
 * device plugin runs while its deploy label is {@code true}, unregisters (its GPUs leave the Node's
 * allocatable) when the label is {@code false}, and registers again when it is {@code true}.
 */
class NodeAgentsCommandIT {
  static final String NODE = "cmd-h100";
  static final String LABEL = "nvidia.com/gpu.deploy.device-plugin";

  @Test
  void theDeployLabelStopsAndStartsTheRealDevicePlugin() throws Exception {
    try (ClusterOnNodes c =
        ClusterOnNodes.apiServerOnly(NodeDescription.gpuNode(NODE, "H100-SXM5-80GB", 8))) {
      ControlPlane cp = c.cp();
      KubernetesClient admin = cp.client();
      NodeDirs dirs = c.cluster().kubelet(NODE).dirs();
      label(admin, "true");
      String plugin =
          "device-plugin --backend=simulated --node-profile=dgx-h100 --node-name="
              + NODE
              + " --kubeconfig="
              + cp.kubeconfig()
              + " --kubelet-socket="
              + dirs.hostPath("/var/lib/kubelet/device-plugins/kubelet.sock")
              + " --cdi-spec-dir="
              + Files.createDirectories(dirs.cdi().resolve("node-agents-it"));
      Map<String, String> env = new HashMap<>(System.getenv());
      env.put("NODE_NAME", NODE);
      Thread host =
          new Thread(
              () ->
                  GpuOperatorCommand.commandLine(env)
                      .execute(
                          "node-agents",
                          "--restart-delay-seconds=1",
                          "--kubeconfig=" + cp.kubeconfig(),
                          "--run",
                          plugin,
                          "--node-selector",
                          "device-plugin=" + LABEL + "=true"),
              "node-agents-it");
      host.setDaemon(true);
      host.start();
      try {
        await()
            .atMost(Duration.ofMinutes(1))
            .untilAsserted(() -> assertThat(gpus(admin)).isEqualTo(8));
        label(admin, "false");
        await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(gpus(admin)).isZero());
        label(admin, "true");
        await()
            .atMost(Duration.ofMinutes(1))
            .untilAsserted(() -> assertThat(gpus(admin)).isEqualTo(8));
      } finally {
        host.interrupt();
        host.join(Duration.ofSeconds(40).toMillis());
      }
      assertThat(host.isAlive()).as("node-agents stopped").isFalse();
    }
  }

  static long gpus(KubernetesClient admin) {
    Map<String, Quantity> a = admin.nodes().withName(NODE).get().getStatus().getAllocatable();
    Quantity q = a == null ? null : a.get("nvidia.com/gpu");
    return q == null ? 0 : q.getNumericalAmount().longValue();
  }

  static void label(KubernetesClient admin, String value) {
    Map<String, Object> labels = new HashMap<>();
    labels.put(LABEL, value);
    admin
        .nodes()
        .withName(NODE)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("labels", labels))));
  }
}
