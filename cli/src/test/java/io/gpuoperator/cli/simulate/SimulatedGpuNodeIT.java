package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.ContainerRunners;
import io.gpuoperator.sim.kubelet.DevicePluginSupport;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import io.gpuoperator.sim.kubelet.SimulatedNodes;
import java.time.Duration;
import java.util.HashMap;
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
  static ControlPlane cp;
  static KubernetesClient admin;
  static SimulatedNodes nodes;
  static SimulatedGpuBackends backends;
  static final Map<String, DevicePluginSupport> devices = new HashMap<>();
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    cp =
        ControlPlane.builder()
            .controllerManager(true)
            .scheduler(true)
            .nodeMonitorGracePeriod("16s")
            .nodes(List.of(NODE))
            .start();
    admin = cp.client();
    List<NodeDescription> cluster = List.of(NodeDescription.gpuNode(NODE, "H100-SXM5-80GB", 8));
    backends = new SimulatedGpuBackends(cluster);
    ContainerRunners runners =
        ContainerRunners.builder()
            .agent("validator", new ValidatorAgent(backends::opener), false)
            .agent("device-plugin", new DevicePluginInProcessAgent(backends), false)
            .build();
    KubeletOptions options =
        new KubeletOptions(
            Duration.ofSeconds(4),
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            Duration.ofSeconds(2));
    nodes =
        SimulatedNodes.start(
            cluster,
            cp::nodeClient,
            (d, b) -> {
              DevicePluginSupport dp = DevicePluginSupport.forNode(d, b.dirs(), b.client());
              devices.put(d.name(), dp);
              return dp.attach(b.runners(runners).agentClient(admin).options(options));
            });
    ns = ControlPlaneExtension.newNamespace(admin, "gpu-node");
    // With the full controller-manager, pods need the namespace's default ServiceAccount, which
    // its controller creates a moment after the namespace.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> admin.serviceAccounts().inNamespace(ns).withName("default").get() != null);
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
    if (backends != null) {
      backends.close();
    }
    if (cp != null) {
      cp.close();
    }
  }

  @Test
  @Order(1)
  void inProcessDevicePluginAdvertisesTheNodesGpus() {
    admin
        .pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("nvidia-device-plugin")
                .endMetadata()
                .withNewSpec()
                .withNodeName(NODE)
                .addNewContainer()
                .withName("nvidia-device-plugin")
                .withImage(OperandImages.projectImage())
                .withArgs("device-plugin")
                .endContainer()
                .endSpec()
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(() -> assertThat(gpus("allocatable")).isEqualTo("8"));
    assertThat(gpus("capacity")).isEqualTo("8");
  }

  @Test
  @Order(2)
  void scheduledGpuPodGetsADeviceRecordedInPodResources() throws Exception {
    admin.pods().inNamespace(ns).resource(gpuPod("trainer", 1)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("trainer").get();
              assertThat(p.getSpec().getNodeName()).isEqualTo(NODE);
              assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            });
    var socket = devices.get(NODE).devices().podResourcesSocket();
    assertThat(socket).startsWith(nodes.root());
    var channel = UnixSockets.channel(socket);
    try {
      var list =
          PodResourcesListerGrpc.newBlockingStub(channel)
              .list(ListPodResourcesRequest.getDefaultInstance());
      var trainer =
          list.getPodResourcesList().stream()
              .filter(r -> r.getName().equals("trainer"))
              .findFirst()
              .orElseThrow();
      var device = trainer.getContainers(0).getDevices(0);
      assertThat(device.getResourceName()).isEqualTo("nvidia.com/gpu");
      assertThat(device.getDeviceIdsList()).hasSize(1);
      assertThat(device.getDeviceIds(0)).startsWith("GPU-");
      assertThat(backends.backend(NODE).deviceByUuid(device.getDeviceIds(0))).isPresent();
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  @Order(3)
  void podAskingForMoreGpusThanAnyNodeHasStaysPending() {
    admin.pods().inNamespace(ns).resource(gpuPod("too-big", 9)).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("too-big").get();
              assertThat(p.getStatus().getPhase()).isEqualTo("Pending");
              assertThat(p.getStatus().getConditions())
                  .anySatisfy(
                      c -> {
                        assertThat(c.getType()).isEqualTo("PodScheduled");
                        assertThat(c.getReason()).isEqualTo("Unschedulable");
                        assertThat(c.getMessage()).contains("Insufficient nvidia.com/gpu");
                      });
            });
  }

  @Test
  @Order(4)
  void kubeletRestartMakesThePluginRegisterAgain() {
    SimulatedKubelet k = nodes.kubelet(NODE);
    assertThat(devices.get(NODE).devices().registrations("nvidia.com/gpu")).isEqualTo(1);
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
              assertThat(devices.get(NODE).devices().registrations("nvidia.com/gpu")).isEqualTo(2);
              assertThat(ready(admin.nodes().withName(NODE).get())).isEqualTo("True");
              assertThat(gpus("allocatable")).isEqualTo("8");
            });
    // The running pod kept its device through the restart.
    assertThat(devices.get(NODE).devices().assignments())
        .anySatisfy(a -> assertThat(a.name()).isEqualTo("trainer"));
  }

  static Pod gpuPod(String name, int gpus) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage("nvcr.io/nvidia/pytorch:24.05-py3")
        .withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
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
