package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.plan.LivePlan;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan --kubeconfig} agrees with the operator: once the operator has applied the sample
 * policy (operands, node labels and taint), plan reports nothing to change; the same policy with
 * one field changed is reported as one update naming exactly that field. Both sides hash and select
 * objects through {@code ManagedObjects} and derive facts through {@code NodeFacts}.
 */
@ExtendWith(ControlPlaneExtension.class)
class PlanMatchesOperatorIT {
  private static final String POLICY = "plan-policy";
  private static final String DEVICE_PLUGIN = "DaemonSet/nvidia-device-plugin-daemonset";
  private static final String EXPORTER = "DaemonSet/nvidia-dcgm-exporter";
  @TempDir Path dir;

  @Test
  void planReportsNothingAfterTheOperatorAndExactlyOneFieldAfterOneEdit(
      KubernetesClient admin, ControlPlane cp) throws Exception {
    Crds.apply(admin);
    String ns = ControlPlaneExtension.newNamespace(admin, "plan-op");
    List<String> nodes = List.of("plan-op-gpu", "plan-op-cpu");
    admin.nodes().resource(ItCluster.node(nodes.get(0), ItCluster.NFD_GPU)).create();
    admin.nodes().resource(ItCluster.node(nodes.get(1), ItCluster.NFD_CPU)).create();
    ClusterPolicy sample = ItCluster.samplePolicy(POLICY);
    Path file = dir.resolve("policy.yaml");
    Files.writeString(file, Serialization.asYaml(sample));
    try (OperatorInstance operator = OperatorInstance.on(cp, ns, "plan").start()) {
      admin.resource(ItCluster.samplePolicy(POLICY)).create();

      // No kubelets or DaemonSet controller here: the operator is done when its writes are.
      String converged =
          await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofSeconds(1))
              .until(
                  () -> LivePlan.run(cp, file, ns),
                  out -> out.contains("Summary: 0 to create, 0 to update, 0 to delete,"));
      assertThat(converged)
          .contains(DEVICE_PLUGIN + ": unchanged")
          .contains("RuntimeClass/nvidia: unchanged")
          .containsPattern("; 0 of \\d+ node\\(s\\) change")
          .contains("  " + nodes.get(0) + ": GPU node, no change\n");

      // A field only one object renders (the device plugin's image is the MPS daemon's too).
      sample.getSpec().dcgmExporter.version = "9.9.9-9.9.9-ubuntu22.04";
      Files.writeString(file, Serialization.asYaml(sample));
      String edited = LivePlan.run(cp, file, ns);
      assertThat(edited)
          .contains("Summary: 0 to create, 1 to update, 0 to delete,")
          .containsPattern("; 0 of \\d+ node\\(s\\) change");
      String block = edited.substring(edited.indexOf(EXPORTER + ": update"));
      List<String> changes =
          block.lines().skip(1).takeWhile(l -> l.startsWith("      ")).map(String::trim).toList();
      assertThat(changes)
          .containsExactly(
              "spec.template.spec.containers[nvidia-dcgm-exporter].image:"
                  + " \"nvcr.io/nvidia/k8s/dcgm-exporter:4.1.1-4.0.4-ubuntu22.04\""
                  + " -> \"nvcr.io/nvidia/k8s/dcgm-exporter:9.9.9-9.9.9-ubuntu22.04\"");
    } finally {
      admin.resources(ClusterPolicy.class).withName(POLICY).delete();
      nodes.forEach(n -> admin.nodes().withName(n).delete());
      admin.namespaces().withName(ns).delete();
    }
  }
}
