package io.gpuoperator.node.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.BehaviourOverride;
import io.gpuoperator.sim.kubelet.DeclaredBehaviour;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The plugin and cuda steps against a real API server, the cuda pod run by a simulated kubelet. */
@ExtendWith(ControlPlaneExtension.class)
class ValidatorIT {
  @TempDir Path tmp;

  ValidatorConfig config(String node, Component c, String ns) {
    return ValidatorConfig.fromEnv(
            Map.of(
                "NODE_NAME",
                node,
                "VALIDATIONS_DIR",
                tmp.resolve("validations").toString(),
                "OPERATOR_NAMESPACE",
                ns,
                "SLEEP_INTERVAL",
                "1",
                "VALIDATION_TIMEOUT",
                "30"))
        .withComponent(c);
  }

  @Test
  void pluginPassesOnceTheNodeAdvertisesGpus(KubernetesClient client) throws Exception {
    String name = "validator-plugin-node";
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    ValidatorConfig config = config(name, Component.PLUGIN, "default");
    Thread publisher =
        new Thread(
            () -> {
              try {
                Thread.sleep(2000);
              } catch (InterruptedException e) {
                return;
              }
              client
                  .nodes()
                  .withName(name)
                  .subresource("status")
                  .patch(
                      PatchContext.of(PatchType.STRATEGIC_MERGE),
                      "{\"status\":{\"capacity\":{\"nvidia.com/mig-1g.10gb\":\"7\"},"
                          + "\"allocatable\":{\"nvidia.com/mig-1g.10gb\":\"7\"}}}");
            });
    publisher.start();
    new Validator(config, r -> null, () -> client).run();
    assertThat(Files.readString(tmp.resolve("validations/plugin-ready")))
        .isEqualTo("nvidia.com/mig-1g.10gb=7\n");
  }

  @Test
  void pluginFailsWhenNoGpuResourceAppears(KubernetesClient client) {
    String name = "validator-plugin-cpu";
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    ValidatorConfig config =
        config(name, Component.PLUGIN, "default")
            .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500));
    assertThatThrownBy(() -> new Validator(config, r -> null, () -> client).run())
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining(
            "advertises no nvidia.com/gpu or nvidia.com/mig-* capacity after 2 s");
    assertThat(tmp.resolve("validations/plugin-ready")).doesNotExist();
  }

  /** A simulated kubelet for the node, started (closed again if it does not start). */
  SimulatedKubelet started(KubernetesClient client, NodeDescription d, int index) throws Exception {
    SimulatedKubelet kubelet =
        SimulatedKubelet.builder(client, d, NodeDirs.create(tmp, d.name())).index(index).build();
    try {
      kubelet.start();
      return kubelet;
    } catch (Exception | Error e) {
      kubelet.close();
      throw e;
    }
  }

  @Test
  void cudaRunsAWorkloadPodOnTheNodeAndCleansUp(KubernetesClient client) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "cuda");
    String node = "validator-cuda-node";
    NodeDescription d = NodeDescription.gpuNode(node, "H100-SXM5-80GB", 8);
    try (SimulatedKubelet kubelet = started(client, d, 7)) {
      publishGpus(client, node);
      new Validator(config(node, Component.CUDA, ns), r -> null, () -> client).run();
      assertThat(tmp.resolve("validations/cuda-ready")).exists();
      assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
    }
  }

  @Test
  void cudaFailsWhenTheWorkloadFails(KubernetesClient client) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "cuda-fail");
    String node = "validator-cuda-broken";
    NodeDescription d =
        NodeDescription.gpuNode(node, "H100-SXM5-80GB", 8)
            .withOverrides(
                List.of(
                    new BehaviourOverride(
                        "cuda-sample",
                        null,
                        null,
                        DeclaredBehaviour.fails(Duration.ofMillis(200), 2))));
    ValidatorConfig config =
        config(node, Component.CUDA, ns).withTimeouts(Duration.ofSeconds(8), Duration.ofSeconds(1));
    try (SimulatedKubelet kubelet = started(client, d, 8)) {
      publishGpus(client, node);
      // restartPolicy OnFailure: the pod keeps crashing and never completes.
      assertThatThrownBy(() -> new Validator(config, r -> null, () -> client).run())
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("did not complete within 8 s");
      assertThat(tmp.resolve("validations/cuda-ready")).doesNotExist();
    }
  }

  @Test
  void cudaFailsOnANodeWithoutAllocatableGpus(KubernetesClient client) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "cuda-nogpu");
    String node = "validator-cuda-nogpu";
    NodeDescription d = NodeDescription.gpuNode(node, "H100-SXM5-80GB", 8);
    try (SimulatedKubelet kubelet = started(client, d, 9)) {
      // No device plugin published nvidia.com/gpu: no workload pod is even tried.
      ValidatorConfig config =
          config(node, Component.CUDA, ns)
              .withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500));
      assertThatThrownBy(() -> new Validator(config, r -> null, () -> client).run())
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("node validator-cuda-nogpu advertises no nvidia.com/gpu");
      assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
    }
  }

  @Test
  void cancellingTheCudaStepDeletesItsWorkloadPod(KubernetesClient client) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "cuda-cancel");
    String node = "validator-cuda-cancel";
    // No kubelet: the workload pod stays Pending, and the step waits for it.
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
        .create();
    publishGpus(client, node);
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      CompletableFuture<Verdict> run =
          new Validator(config(node, Component.CUDA, ns), r -> null, () -> client).start(scheduler);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !client.pods().inNamespace(ns).list().getItems().isEmpty());
      assertThat(run).isNotDone();
      run.cancel(true); // the container killed
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> client.pods().inNamespace(ns).list().getItems().isEmpty());
      assertThat(tmp.resolve("validations/cuda-ready")).doesNotExist();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void theNodesLabelsFromTheApiServerSwitchTheSandboxAndCcSteps(KubernetesClient client)
      throws Exception {
    String name = "validator-sandbox-node";
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("nvidia.com/gpu.workload.config", "vm-vgpu")
                .addToLabels("nvidia.com/cc.capable", "true")
                .endMetadata()
                .build())
        .create();
    ValidatorConfig vfio = config(name, Component.VFIO_PCI, "default");
    Verdict skipped = new Validator(vfio, r -> null, () -> client).run();
    assertThat(skipped.skipped()).isEqualTo("the node's workload is vm-vgpu, not vm-passthrough");
    assertThat(Files.readString(tmp.resolve("validations/workload-type"))).isEqualTo("vm-vgpu\n");

    ValidatorConfig cc =
        config(name, Component.CC_MANAGER, "default")
            .withTimeouts(Duration.ofSeconds(1), Duration.ofMillis(200));
    assertThatThrownBy(() -> new Validator(cc, r -> null, () -> client).run())
        .hasMessageContaining(".cc-manager-ctr-ready");
    Files.writeString(tmp.resolve("validations/.cc-manager-ctr-ready"), "");
    new Validator(cc, r -> null, () -> client).run();
    assertThat(tmp.resolve("validations/cc-manager-ready")).exists();

    ValidatorConfig missing = config("no-such-node", Component.CC_MANAGER, "default");
    assertThatThrownBy(() -> new Validator(missing, r -> null, () -> client).run())
        .hasMessage("node no-such-node does not exist");
  }

  static void publishGpus(KubernetesClient client, String node) {
    Node n = client.nodes().withName(node).get();
    assertThat(n).isNotNull();
    client
        .nodes()
        .withName(node)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"8\"},\"allocatable\":{\"nvidia.com/gpu\":\"8\"}}}");
  }
}
