package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan --kubeconfig} against a real API server: objects applied from an earlier rendering
 * are reported unchanged, a changed image as an update naming the field, a disabled operand's
 * objects as deletes, and a new GPU node with the labels it would get (no taint: the sample gives
 * no spec.nodeTaint).
 */
@ExtendWith(ControlPlaneExtension.class)
class PlanIT {
  private static final KubernetesSerialization K = new KubernetesSerialization();
  @TempDir Path dir;

  @Test
  void planComparesWithLiveObjectsAndNodes(KubernetesClient client, ControlPlane cp)
      throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "plan");
    OperatorConfig config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", ns));
    // The API server has no GPU nodes yet: render as the operator would for such a cluster.
    ClusterFacts facts = NodeFacts.of(List.of(), "v1.36.3", false);
    List<HasMetadata> applied = new ArrayList<>();
    for (RenderedOperand op : Operands.renderAll(Policies.sample(), facts, config)) {
      for (HasMetadata o : op.objects()) {
        applied.add(client.resource(o).createOr(r -> r.update()));
      }
    }
    String node = "plan-gpu-" + ns;
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(node)
                .withLabels(Map.of("feature.node.kubernetes.io/pci-10de.present", "true"))
                .endMetadata()
                .build())
        .create();
    try {
      Path same = dir.resolve("same.yaml");
      try (InputStream in = Policies.class.getResourceAsStream(Policies.SAMPLE)) {
        Files.write(same, in.readAllBytes());
      }
      String unchanged = LivePlan.run(cp, same, ns);
      assertThat(unchanged)
          .contains("DaemonSet/nvidia-device-plugin-daemonset: unchanged")
          .contains("RuntimeClass/nvidia: unchanged")
          .contains("0 to create, 0 to update, 0 to delete")
          .contains("  " + node + ": GPU node\n")
          .contains("    taint: none");

      var changed = Policies.sample();
      changed.getSpec().devicePlugin.version = "v0.18.0";
      changed.getSpec().gfd.enabled = false;
      Path edited = dir.resolve("edited.yaml");
      Files.writeString(edited, K.asYaml(changed));
      String diff = LivePlan.run(cp, edited, ns);
      assertThat(diff)
          .contains("DaemonSet/nvidia-device-plugin-daemonset: update")
          .contains(
              "spec.template.spec.containers[nvidia-device-plugin].image:"
                  + " \"nvcr.io/nvidia/k8s-device-plugin:v0.17.1\""
                  + " -> \"nvcr.io/nvidia/k8s-device-plugin:v0.18.0\"")
          .contains("  gpu-feature-discovery (disabled)")
          .contains("DaemonSet/gpu-feature-discovery: delete")
          .contains("ServiceAccount/nvidia-gpu-feature-discovery: delete")
          .contains("DaemonSet/nvidia-driver-daemonset: unchanged")
          // The MPS control daemon runs the device plugin's image, so it follows the version.
          .contains("DaemonSet/nvidia-device-plugin-mps-control-daemon: update")
          .containsPattern("0 to create, 2 to update, [1-9]\\d* to delete");
    } finally {
      client.nodes().withName(node).delete();
      for (HasMetadata o : applied) {
        if (o.getMetadata().getNamespace() == null) {
          client.resource(o).delete();
        }
      }
      client.namespaces().withName(ns).delete();
    }
  }
}
