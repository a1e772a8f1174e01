package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.node.exporter.PodResourcesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A simulated 8-GPU node on a real control plane (controller-manager and scheduler): the real
 * device plugin runs in-process in a pod, registers with the node's kubelet side, the scheduler
 * places GPU pods by the advertised capacity, allocations show in pod-resources, and a kubelet
 * restart makes the plugin register again.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedGpuNodeIT {
  static final String NODE = "dp-h100";
  static final String VALIDATOR_IMAGE =
      "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.0";
  static ClusterOnNodes nodes;
  static ControlPlane cp;
  static KubernetesClient admin;
  static SimulatedCluster cluster;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    nodes =
        ClusterOnNodes.start(
            ControlPlane.builder()
                .controllerManager(true)
                .scheduler(true)
                .nodeMonitorGracePeriod("16s"),
            List.of(NodeDescription.gpuNode(NODE, "H100-SXM5-80GB", 8)),
            KubeletOptions.quick());
    cp = nodes.cp();
    cluster = nodes.cluster();
    admin = cp.client();
    ns = ControlPlaneExtension.newNamespace(admin, "gpu-node");
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
      assertThat(cluster.root()).doesNotExist();
    }
  }

  @Test
  @Order(1)
  void inProcessDevicePluginAdvertisesTheNodesGpus() {
    createPod(
        "nvidia-device-plugin",
        container("nvidia-device-plugin", OperandImages.projectImage())
            .withArgs("device-plugin")
            .build());
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(() -> assertThat(gpus("allocatable")).isEqualTo("8"));
    assertThat(gpus("capacity")).isEqualTo("8");
  }

  @Test
  @Order(2)
  void inProcessFeatureDiscoveryLabelsTheNode() {
    createPod(
        "gpu-feature-discovery",
        container("gpu-feature-discovery", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1")
            .withArgs("feature-discovery")
            .build());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(admin.nodes().withName(NODE).get().getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.count", "8")
                    // gpu.present is the operator's label, not feature discovery's (as in the
                    // original).
                    .doesNotContainKey("nvidia.com/gpu.present")
                    .hasEntrySatisfying(
                        "nvidia.com/gpu.product", v -> assertThat(v).contains("H100")));
  }

  @Test
  @Order(3)
  void nodeComesUpInOrderThroughTheValidatorChain() {
    // The shapes the operator renders: driver, toolkit (waits for the driver), and the
    // operator-validator's init chain driver, toolkit, cuda, plugin, all with WITH_WAIT.
    createPod(
        "nvidia-operator-validator",
        container("nvidia-operator-validator", VALIDATOR_IMAGE)
            .withCommand("sh", "-c")
            .withArgs("echo all validations are successful; while true; do sleep 86400; done")
            .build(),
        validation("driver"),
        validation("toolkit"),
        validation("cuda"),
        validation("plugin"));
    createPod(
        "nvidia-container-toolkit",
        container(
                "nvidia-container-toolkit-ctr",
                "nvcr.io/nvidia/k8s/container-toolkit:v1.17.5-ubuntu20.04")
            .withCommand("nvidia-toolkit")
            // As the operator's DaemonSet: CDI on, as the validator expects by default.
            .addNewEnv()
            .withName("CDI_ENABLED")
            .withValue("true")
            .endEnv()
            .build(),
        validation("driver"));
    var validations = cluster.kubelet(NODE).dirs().validations();
    try {
      Thread.sleep(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    assertThat(validations.resolve("driver-ready")).doesNotExist();
    createPod(
        "nvidia-driver",
        container("nvidia-driver-ctr", "nvcr.io/nvidia/driver:570.124.06-ubuntu22.04")
            .withCommand("nvidia-driver")
            .withArgs("init")
            .build());
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("nvidia-operator-validator").get();
              assertThat(p.getStatus().getConditions())
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo("Ready");
                        assertThat(c.getStatus()).isEqualTo("True");
                      });
            });
    for (String marker : List.of("driver-ready", "toolkit-ready", "cuda-ready", "plugin-ready")) {
      assertThat(validations.resolve(marker)).exists();
    }
    Pod validator = admin.pods().inNamespace(ns).withName("nvidia-operator-validator").get();
    // Each init step finished after the one before it.
    var inits = validator.getStatus().getInitContainerStatuses();
    for (int i = 1; i < inits.size(); i++) {
      assertThat(inits.get(i).getState().getTerminated().getFinishedAt())
          .isGreaterThanOrEqualTo(inits.get(i - 1).getState().getTerminated().getFinishedAt());
      assertThat(inits.get(i).getRestartCount()).isZero();
    }
    // The cuda workload pod ran and is gone.
    assertThat(
            admin
                .pods()
                .inNamespace(ns)
                .withLabel("app", "nvidia-cuda-validator")
                .list()
                .getItems())
        .isEmpty();
  }

  /** A pod on the node, as a DaemonSet's would be: placed there, not scheduled. */
  static void createPod(String name, Container main, Container... init) {
    admin.pods().inNamespace(ns).resource(WorkloadPods.placedPod(name, NODE, main, init)).create();
  }

  static ContainerBuilder container(String name, String image) {
    return new ContainerBuilder().withName(name).withImage(image);
  }

  static Container validation(String component) {
    return container(component + "-validation", VALIDATOR_IMAGE)
        .withArgs("validator", "--component", component)
        .addNewEnv()
        .withName("WITH_WAIT")
        .withValue("true")
        .endEnv()
        .addNewEnv()
        .withName("OPERATOR_NAMESPACE")
        .withValue(ns)
        .endEnv()
        .addNewEnv()
        .withName("NODE_NAME")
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath("spec.nodeName")
        .endFieldRef()
        .endValueFrom()
        .endEnv()
        .build();
  }

  @Test
  @Order(4)
  void scheduledGpuPodGetsADeviceRecordedInPodResources() throws Exception {
    admin.pods().inNamespace(ns).resource(WorkloadPods.gpuPod("trainer", 1, null)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("trainer").get();
              assertThat(p.getSpec().getNodeName()).isEqualTo(NODE);
              assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            });
    var socket = cluster.devices(NODE).devices().podResourcesSocket();
    assertThat(socket).startsWith(cluster.root());
    try (PodResourcesClient podResources = new PodResourcesClient(socket, Duration.ofSeconds(10))) {
      var trainer =
          podResources.list().getPodResourcesList().stream()
              .filter(r -> r.getName().equals("trainer"))
              .findFirst()
              .orElseThrow();
      var device = trainer.getContainers(0).getDevices(0);
      assertThat(device.getResourceName()).isEqualTo("nvidia.com/gpu");
      assertThat(device.getDeviceIdsList()).hasSize(1);
      assertThat(device.getDeviceIds(0)).startsWith("GPU-");
      assertThat(cluster.backends().backend(NODE).deviceByUuid(device.getDeviceIds(0))).isPresent();
    }
  }

  @Test
  @Order(5)
  void podAskingForMoreGpusThanAnyNodeHasStaysPending() {
    admin.pods().inNamespace(ns).resource(WorkloadPods.gpuPod("too-big", 9, null)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("too-big").get();
              WorkloadPods.assertUnschedulable(p, "Insufficient nvidia.com/gpu");
            });
  }

  @Test
  @Order(6)
  void kubeletRestartMakesThePluginRegisterAgain() {
    SimulatedKubelet k = cluster.kubelet(NODE);
    assertThat(cluster.devices(NODE).devices().registrations("nvidia.com/gpu")).isEqualTo(1);
    k.kill();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> "Unknown".equals(ready(admin.nodes().withName(NODE).get())));
    k.start();
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(
            () -> {
              assertThat(cluster.devices(NODE).devices().registrations("nvidia.com/gpu"))
                  .isEqualTo(2);
              assertThat(ready(admin.nodes().withName(NODE).get())).isEqualTo("True");
              assertThat(gpus("allocatable")).isEqualTo("8");
            });
    // The running pod kept its device through the restart.
    assertThat(cluster.devices(NODE).devices().assignments())
        .anySatisfy(a -> assertThat(a.name()).isEqualTo("trainer"));
  }

  static String gpus(String field) {
    Node n = admin.nodes().withName(NODE).get();
    Map<String, Quantity> m =
        field.equals("capacity") ? n.getStatus().getCapacity() : n.getStatus().getAllocatable();
    Quantity q = m == null ? null : m.get("nvidia.com/gpu");
    return q == null ? null : q.getAmount();
  }

  static String ready(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .map(c -> c.getStatus())
        .findFirst()
        .orElse(null);
  }
}
