package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.NodeFacts;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Sandbox workloads meet a real API server, DaemonSet controller and scheduler: with {@code
 * sandboxWorkloads.enabled}, the node label rules' patch and the rendered operands put the VFIO
 * manager, the KubeVirt device plugin and the sandbox validator on the {@code vm-passthrough} node
 * and nothing of the container stack there; the vGPU manager and the vGPU device manager (with a
 * ConfigMap of layouts), not the VFIO manager, on the {@code vm-vgpu} node; the container stack,
 * and no sandbox operand, on the node without the workload label (the policy's default workload,
 * container); nothing on the CPU node.
 */
class SandboxSchedulingIT {
  private static final String NS = "gpu-operator";
  private static final Set<String> SANDBOX_SHARED =
      Set.of("nvidia-sandbox-device-plugin-daemonset", "nvidia-sandbox-validator");

  @Test
  void eachWorkloadGetsItsOperandsByLabel() throws Exception {
    try (SchedulingCluster cluster = SchedulingCluster.start(NS)) {
      KubernetesClient client = cluster.client();
      Map<String, String> gpu =
          Map.of(
              "feature.node.kubernetes.io/pci-10de.present", "true",
              "feature.node.kubernetes.io/system-os_release.ID", "ubuntu",
              "feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04");
      cluster.readyNode("gpu-container", gpu);
      cluster.readyNode(
          "gpu-passthrough", with(gpu, "nvidia.com/gpu.workload.config", "vm-passthrough"));
      cluster.readyNode("gpu-vgpu", with(gpu, "nvidia.com/gpu.workload.config", "vm-vgpu"));
      cluster.readyNode("cpu-1", Map.of("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel"));

      var policy = Policies.sample();
      policy.getSpec().sandboxWorkloads.enabled = true;
      policy.getSpec().sandboxWorkloads.mode = SandboxWorkloadsSpec.Mode.KUBEVIRT;
      policy.getSpec().vgpuManager.enabled = true;
      policy.getSpec().vgpuManager.repository = "registry.example.com/vgpu";
      policy.getSpec().vgpuManager.version = "580.65.05";
      // The vGPU device manager's layouts: a ConfigMap of the user's (none is shipped).
      policy.getSpec().vgpuDeviceManager.config.name = "vgpu-layouts";
      client
          .configMaps()
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("vgpu-layouts")
                  .withNamespace(NS)
                  .endMetadata()
                  .addToData("config.yaml", "version: v1\nvgpu-configs: {}\n")
                  .build())
          .create();
      cluster.applyLabelRules(policy);
      assertThat(
              client.nodes().withName("gpu-passthrough").get().getMetadata().getLabels().keySet())
          .contains(
              "nvidia.com/gpu.deploy.vfio-manager",
              "nvidia.com/gpu.deploy.sandbox-device-plugin",
              "nvidia.com/gpu.deploy.sandbox-validator")
          .doesNotContain(
              "nvidia.com/gpu.deploy.driver",
              "nvidia.com/gpu.deploy.device-plugin",
              "nvidia.com/gpu.deploy.container-toolkit");

      var facts =
          NodeFacts.of(client.nodes().list().getItems(), "v1.36.3", false)
              .withConfigMapKeys(Map.of("vgpu-layouts", List.of("config.yaml")));
      Set<String> daemonSets = cluster.createOperands(policy, facts);
      assertThat(daemonSets)
          .contains(
              "nvidia-vfio-manager",
              "nvidia-vgpu-manager-daemonset",
              "nvidia-vgpu-device-manager",
              "nvidia-sandbox-device-plugin-daemonset",
              "nvidia-sandbox-validator",
              "nvidia-driver-daemonset",
              "nvidia-device-plugin-daemonset");

      Map<String, Set<String>> expected = new TreeMap<>();
      Set<String> passthrough = new TreeSet<>(SANDBOX_SHARED);
      passthrough.add("nvidia-vfio-manager");
      Set<String> vgpu = new TreeSet<>(SANDBOX_SHARED);
      vgpu.add("nvidia-vgpu-manager-daemonset");
      vgpu.add("nvidia-vgpu-device-manager");
      Set<String> container = new TreeSet<>(daemonSets);
      container.removeAll(passthrough);
      container.removeAll(vgpu);
      // The MPS control daemon also needs nvidia.com/mps.capable, which nothing sets here.
      container.remove("nvidia-device-plugin-mps-control-daemon");
      // No MIG-capable product on these nodes: no MIG manager label.
      container.remove("nvidia-mig-manager");
      expected.put("gpu-passthrough", passthrough);
      expected.put("gpu-vgpu", vgpu);
      expected.put("gpu-container", container);

      Supplier<Map<String, Set<String>>> placement = () -> placement(client);
      Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
      while (!placement.get().equals(expected) && Instant.now().isBefore(deadline)) {
        Thread.sleep(1000);
      }
      assertThat(placement.get()).as("DaemonSets with a pod, per node").isEqualTo(expected);
      // One pod per DaemonSet and node.
      assertThat(client.pods().inNamespace(NS).list().getItems())
          .hasSize(passthrough.size() + vgpu.size() + container.size());
      Pod vfio =
          client
              .pods()
              .inNamespace(NS)
              .withLabel("name", "nvidia-vfio-manager")
              .list()
              .getItems()
              .get(0);
      assertThat(vfio.getSpec().getNodeName()).isEqualTo("gpu-passthrough");
      assertThat(vfio.getSpec().getRuntimeClassName()).isNull();
    }
  }

  /** Node name → the DaemonSets that have a pod bound there. */
  private static Map<String, Set<String>> placement(KubernetesClient client) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (Pod p : client.pods().inNamespace(NS).list().getItems()) {
      if (p.getSpec().getNodeName() == null || p.getMetadata().getOwnerReferences().isEmpty()) {
        continue;
      }
      out.computeIfAbsent(p.getSpec().getNodeName(), k -> new TreeSet<>())
          .add(p.getMetadata().getOwnerReferences().get(0).getName());
    }
    return out;
  }

  private static Map<String, String> with(Map<String, String> labels, String key, String value) {
    Map<String, String> out = new TreeMap<>(labels);
    out.put(key, value);
    return out;
  }
}
