package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The rendered operands meet a real DaemonSet controller and scheduler: after the node label rules'
 * patch, every enabled operand runs exactly one pod on the GPU node (deploy labels select it, the
 * pods tolerate the GPU taint the policy names, RuntimeClass and priority class admit them) and
 * none on the CPU node; a DaemonSet without the toleration stays off the tainted GPU node.
 */
class OperandSchedulingIT {
  private static final String NS = "gpu-operator";

  @Test
  void operandsLandOnGpuNodesOnly() throws Exception {
    try (SchedulingCluster cluster = SchedulingCluster.start(NS)) {
      KubernetesClient client = cluster.client();
      cluster.readyNode(
          "gpu-1",
          Map.of(
              "feature.node.kubernetes.io/pci-10de.present", "true",
              "feature.node.kubernetes.io/system-os_release.ID", "ubuntu",
              "feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04",
              "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"));
      cluster.readyNode("cpu-1", Map.of("feature.node.kubernetes.io/cpu-model.vendor_id", "Intel"));

      // A taint of the policy's own (none by default, as the original): the operands must
      // tolerate it, a workload without the toleration stays off.
      var policy = Policies.sample();
      policy.getSpec().nodeTaint = new io.gpuoperator.api.v1.NodeTaintSpec();
      policy.getSpec().nodeTaint.key = "example.com/dedicated-gpu";
      cluster.applyLabelRules(policy);
      assertThat(NodeLabelRules.change(client.nodes().withName("gpu-1").get(), policy).isEmpty())
          .as("one patch converges")
          .isTrue();

      Set<String> daemonSets =
          cluster.createOperands(
              policy, NodeFacts.of(client.nodes().list().getItems(), "v1.36.3", false));
      // A workload without the GPU toleration, selecting every node.
      client
          .resource(
              new DaemonSetBuilder()
                  .withNewMetadata()
                  .withName("no-toleration")
                  .withNamespace(NS)
                  .endMetadata()
                  .withNewSpec()
                  .withNewSelector()
                  .addToMatchLabels("app", "no-toleration")
                  .endSelector()
                  .withNewTemplate()
                  .withNewMetadata()
                  .addToLabels("app", "no-toleration")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("c")
                  .withImage("busybox")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .endSpec()
                  .build())
          .create();

      Supplier<Map<String, String>> placement =
          () ->
              client.pods().inNamespace(NS).list().getItems().stream()
                  .filter(p -> p.getSpec().getNodeName() != null)
                  .collect(
                      Collectors.toMap(
                          p ->
                              p.getMetadata().getLabels().get("app")
                                  + "@"
                                  + p.getSpec().getNodeName(),
                          p -> p.getMetadata().getName(),
                          (a, b) -> a + "," + b,
                          TreeMap::new));
      // The MPS control daemon waits for nvidia.com/mps.capable=true, which only the device plugin
      // sets when MPS sharing is configured: no pod for it here.
      Set<String> expected =
          daemonSets.stream()
              .filter(d -> !d.equals("nvidia-device-plugin-mps-control-daemon"))
              .map(d -> d + "@gpu-1")
              .collect(Collectors.toSet());
      expected.add("no-toleration@cpu-1");
      Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
      while (!placement.get().keySet().equals(expected) && Instant.now().isBefore(deadline)) {
        Thread.sleep(1000);
      }
      assertThat(daemonSets)
          .contains(
              "nvidia-driver-daemonset",
              "nvidia-container-toolkit-daemonset",
              "nvidia-operator-validator",
              "nvidia-device-plugin-daemonset",
              "nvidia-dcgm-exporter",
              "gpu-feature-discovery",
              "nvidia-mig-manager");
      assertThat(placement.get().keySet())
          .as(diagnostics(client, cluster.controlPlane()))
          .isEqualTo(expected);
      // Exactly one pod per DaemonSet (no duplicates in the merged names).
      assertThat(placement.get().values()).noneMatch(v -> v.contains(","));
      Pod plugin =
          client
              .pods()
              .inNamespace(NS)
              .withLabel("app", "nvidia-device-plugin-daemonset")
              .list()
              .getItems()
              .get(0);
      assertThat(plugin.getSpec().getRuntimeClassName()).isEqualTo("nvidia");
      assertThat(plugin.getSpec().getPriority()).isEqualTo(2000001000);
    }
  }

  /** Pods and events of the namespace, for a failure message. */
  private static String diagnostics(KubernetesClient client, ControlPlane cp) {
    StringBuilder out = new StringBuilder("pods:\n");
    client
        .pods()
        .inNamespace(NS)
        .list()
        .getItems()
        .forEach(
            p ->
                out.append("  ")
                    .append(p.getMetadata().getName())
                    .append(" node=")
                    .append(p.getSpec().getNodeName())
                    .append(" ")
                    .append(p.getStatus() == null ? "" : p.getStatus().getConditions())
                    .append('\n'));
    out.append("daemonsets:\n");
    client
        .apps()
        .daemonSets()
        .inNamespace(NS)
        .list()
        .getItems()
        .forEach(
            d ->
                out.append("  ")
                    .append(d.getMetadata().getName())
                    .append(" ")
                    .append(d.getStatus())
                    .append('\n'));
    out.append("nodes:\n");
    client
        .nodes()
        .list()
        .getItems()
        .forEach(
            n ->
                out.append("  ")
                    .append(n.getMetadata().getName())
                    .append(" taints=")
                    .append(n.getSpec().getTaints())
                    .append(" unschedulable=")
                    .append(n.getSpec().getUnschedulable())
                    .append(" alloc=")
                    .append(n.getStatus().getAllocatable())
                    .append('\n'));
    out.append("events:\n");
    client.v1().events().inNamespace(NS).list().getItems().stream()
        .limit(30)
        .forEach(
            e ->
                out.append("  ")
                    .append(e.getInvolvedObject().getName())
                    .append(": ")
                    .append(e.getReason())
                    .append(" ")
                    .append(e.getMessage())
                    .append('\n'));
    for (String log : List.of("kube-controller-manager.log", "kube-scheduler.log")) {
      out.append(log).append(":\n");
      try {
        var lines = java.nio.file.Files.readAllLines(cp.directory().resolve(log));
        lines.stream()
            .filter(
                l -> l.startsWith("E") || l.toLowerCase(java.util.Locale.ROOT).contains("daemon"))
            .skip(Math.max(0, lines.size() - 400))
            .limit(25)
            .forEach(l -> out.append("  ").append(l, 0, Math.min(l.length(), 300)).append('\n'));
      } catch (java.io.IOException e) {
        out.append("  ").append(e).append('\n');
      }
    }
    return out.toString();
  }
}
