package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.reconciler.NodeLabelRulesPlanner;
import io.gpuoperator.operator.reconciler.OperandRegistryRenderer;
import io.gpuoperator.operator.runtime.GpuOperator;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The whole stack on simulated nodes: the real operator renders the sample ClusterPolicy's
 * operands, the real DaemonSet controller and scheduler place them, simulated kubelets run them
 * (our validator, device plugin and feature discovery in-process), until the policy is ready.
 */
class SimulatedClusterIT {
  static final String NS = "gpu-operator";

  @Test
  void samplePolicyBecomesReadyOnSimulatedNodes() throws Exception {
    try (ClusterOnNodes c = ClusterOnNodes.withScheduler(ClusterOnNodes.SMALL)) {
      ControlPlane cp = c.cp();
      SimulatedCluster cluster = c.cluster();
      KubernetesClient admin = cp.client();
      Crds.apply(admin);
      ControlPlaneExtension.createNamespace(admin, NS, Map.of());
      try (KubernetesClient operatorClient = cp.newClient();
          GpuOperator operator =
              new GpuOperator(
                  operatorClient,
                  OperatorConfig.fromEnv(
                      Map.of(
                          "OPERATOR_NAMESPACE", NS,
                          "METRICS_PORT", "0",
                          "HEALTH_PORT", "0",
                          "LEADER_ELECT", "false")),
                  new OperandRegistryRenderer(),
                  new NodeLabelRulesPlanner(),
                  GpuOperator.Options.on("127.0.0.1", "simulated", false, 8))) {
        operator.start();
        try (InputStream in =
            ClusterPolicy.class.getResourceAsStream(
                "/io/gpuoperator/api/samples/clusterpolicy.yaml")) {
          admin.resources(ClusterPolicy.class).load(in).create();
        }
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofSeconds(2))
            .untilAsserted(
                () -> {
                  rollOnDeletePods(admin);
                  ClusterPolicy p = admin.resources(ClusterPolicy.class).list().getItems().get(0);
                  assertThat(p.getStatus()).isNotNull();
                  assertThat(p.getStatus().state)
                      .as(() -> describe(admin, p))
                      .isEqualTo(io.gpuoperator.api.common.State.READY);
                });
        // Seen once in CI: right after the policy turned ready, h100-0 had no nvidia.com/gpu yet
        // (the
        // policy's state comes from the DaemonSets, the count from the kubelet's node status). Not
        // explained yet; the count must still come, so wait for it a little.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  assertThat(gpus(admin, "h100-0")).isEqualTo("8");
                  assertThat(gpus(admin, "l4-0")).isEqualTo("2");
                });
        assertThat(gpus(admin, "cpu-0")).isNull();
        assertThat(admin.nodes().withName("h100-0").get().getMetadata().getLabels())
            .hasEntrySatisfying("nvidia.com/gpu.product", v -> assertThat(v).contains("H100"));
        assertThat(admin.nodes().withName("cpu-0").get().getMetadata().getLabels())
            .doesNotContainKey("nvidia.com/gpu.product");
        for (String marker :
            List.of("driver-ready", "toolkit-ready", "cuda-ready", "plugin-ready")) {
          assertThat(cluster.kubelet("l4-0").dirs().validations().resolve(marker)).exists();
        }
        // The real toolkit agent configured each GPU node: containerd's drop-in, imported by the
        // main config, and the management CDI spec naming every GPU.
        var h100 = cluster.kubelet("h100-0").dirs();
        assertThat(h100.hostPath("/etc/containerd/config.toml"))
            .content()
            .contains("imports = [\"/etc/containerd/conf.d/99-nvidia.toml\"]");
        assertThat(h100.hostPath("/etc/containerd/conf.d/99-nvidia.toml"))
            .content()
            .contains("containerd.runtimes.nvidia]", "enable_cdi = true");
        String spec = Files.readString(h100.cdi().resolve("management.nvidia.com-gpu.yaml"));
        assertThat(spec).contains("kind: \"management.nvidia.com/gpu\"", "name: \"all\"");
        assertThat(spec.split("name: \"GPU-", -1)).hasSize(9);

        // Disabling the toolkit deletes its DaemonSet; its pods stop and the agent reverts exactly
        // what it added: no import, no drop-in, no CDI spec.
        admin
            .resources(ClusterPolicy.class)
            .withName(
                admin
                    .resources(ClusterPolicy.class)
                    .list()
                    .getItems()
                    .get(0)
                    .getMetadata()
                    .getName())
            .edit(
                p -> {
                  p.getSpec().toolkit.enabled = false;
                  return p;
                });
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofSeconds(1))
            .untilAsserted(
                () -> {
                  assertThat(h100.hostPath("/etc/containerd/conf.d/99-nvidia.toml")).doesNotExist();
                  assertThat(h100.cdi().resolve("management.nvidia.com-gpu.yaml")).doesNotExist();
                });
        var config = h100.hostPath("/etc/containerd/config.toml");
        if (Files.exists(config)) {
          assertThat(config).content().doesNotContain("99-nvidia");
        }
      }
    }
  }

  /**
   * The driver DaemonSet updates OnDelete, and the operator re-renders it once node facts (OS,
   * kernel) arrive: without the driver upgrade controller, do what it does and delete the driver
   * pods of an older template generation so the DaemonSet controller recreates them.
   */
  static void rollOnDeletePods(KubernetesClient client) {
    for (var ds : client.apps().daemonSets().inNamespace(NS).list().getItems()) {
      if (!"OnDelete".equals(ds.getSpec().getUpdateStrategy().getType())) {
        continue;
      }
      String generation = String.valueOf(ds.getMetadata().getGeneration());
      for (var pod :
          client
              .pods()
              .inNamespace(NS)
              .withLabels(ds.getSpec().getSelector().getMatchLabels())
              .list()
              .getItems()) {
        String podGeneration = pod.getMetadata().getLabels().get("pod-template-generation");
        if (pod.getMetadata().getDeletionTimestamp() == null
            && podGeneration != null
            && !podGeneration.equals(generation)) {
          client.pods().inNamespace(NS).withName(pod.getMetadata().getName()).delete();
        }
      }
    }
  }

  /** Why the policy is not ready: its operands and the DaemonSets' status. */
  static String describe(KubernetesClient client, ClusterPolicy p) {
    StringBuilder out = new StringBuilder("\n");
    if (p.getStatus().operands != null) {
      for (var o : p.getStatus().operands) {
        out.append(o.name)
            .append(' ')
            .append(o.state)
            .append(' ')
            .append(o.reason)
            .append(' ')
            .append(o.message)
            .append('\n');
      }
    }
    for (var ds : client.apps().daemonSets().inNamespace(NS).list().getItems()) {
      out.append(ds.getMetadata().getName()).append(' ').append(ds.getStatus()).append('\n');
    }
    return out.toString();
  }

  static String gpus(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    Map<String, Quantity> a = n.getStatus().getAllocatable();
    Quantity q = a == null ? null : a.get("nvidia.com/gpu");
    return q == null ? null : q.getAmount();
  }
}
