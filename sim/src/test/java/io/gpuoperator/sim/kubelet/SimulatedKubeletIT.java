package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Simulated kubelets on a real control plane with the controller-manager (DaemonSet and
 * node-lifecycle controllers) and the scheduler.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedKubeletIT {
  static final String GPU_NODE = "sim-gpu";
  static final String CPU_NODE = "sim-cpu";
  static ControlPlane cp;
  static KubernetesClient admin;
  static SimulatedNodes nodes;
  static final List<String> restarts = new ArrayList<>();
  static SimulatedKubelet gpu;
  static SimulatedKubelet cpu;
  static String ns;

  @BeforeAll
  static void start() throws Exception {
    cp =
        ControlPlane.builder()
            .controllerManager(true)
            .scheduler(true)
            .nodeMonitorGracePeriod("16s")
            .nodes(List.of(GPU_NODE, CPU_NODE))
            .start();
    admin = cp.client();
    KubeletOptions options = KubeletOptions.quick();
    List<BehaviourOverride> overrides =
        List.of(
            // The NVIDIA driver container: ready after 1 s, then writes its marker.
            new BehaviourOverride(
                "nvcr.io/nvidia/driver",
                null,
                null,
                DeclaredBehaviour.runs(Duration.ofSeconds(1))
                    .withWrites(List.of(".driver-ctr-ready"))),
            new BehaviourOverride(
                null, null, "crash", DeclaredBehaviour.fails(Duration.ofMillis(300), 3)));
    NodeDescription gpuNode =
        NodeDescription.gpuNode(GPU_NODE, "H100-SXM5-80GB", 8).withOverrides(overrides);
    nodes =
        SimulatedNodes.start(
            List.of(gpuNode, NodeDescription.cpuNode(CPU_NODE).withOverrides(overrides)),
            cp::nodeClient,
            (d, b) ->
                b.options(options)
                    .lifecycle(
                        new KubeletLifecycle() {
                          @Override
                          public void started(boolean restart) {
                            restarts.add(d.name() + (restart ? " restarted" : " started"));
                          }
                        }));
    gpu = nodes.kubelet(GPU_NODE);
    cpu = nodes.kubelet(CPU_NODE);
    assertThat(gpu.dirs().validations()).startsWith(nodes.root()).isDirectory();
    assertThat(gpu.dirs().devicePlugins()).isNotEqualTo(cpu.dirs().devicePlugins());
    ns = ControlPlaneExtension.newNamespace(admin, "kubelet");
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
      assertThat(nodes.root()).doesNotExist();
    }
    if (cp != null) {
      cp.close();
    }
  }

  @Test
  @Order(1)
  void nodesRegisterWithLabelsAndBecomeReady() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Node n = admin.nodes().withName(GPU_NODE).get();
              assertThat(ready(n)).isEqualTo("True");
              // The controller-manager removes the not-ready taint the API server added.
              assertThat(n.getSpec().getTaints()).isNullOrEmpty();
            });
    Node g = admin.nodes().withName(GPU_NODE).get();
    assertThat(g.getMetadata().getLabels())
        .containsEntry("feature.node.kubernetes.io/pci-10de.present", "true")
        .containsEntry("feature.node.kubernetes.io/system-os_release.ID", "ubuntu")
        .containsEntry("feature.node.kubernetes.io/system-os_release.VERSION_ID", "22.04")
        .containsEntry("feature.node.kubernetes.io/kernel-version.full", "5.15.0-105-generic")
        .containsEntry("feature.node.kubernetes.io/kernel-version.major", "5");
    assertThat(g.getStatus().getNodeInfo().getContainerRuntimeVersion())
        .startsWith("containerd://1.7.");
    assertThat(g.getStatus().getCapacity()).containsKeys("cpu", "memory", "pods");
    Node c = admin.nodes().withName(CPU_NODE).get();
    assertThat(c.getMetadata().getLabels())
        .doesNotContainKey("feature.node.kubernetes.io/pci-10de.present");

    Lease lease = admin.leases().inNamespace("kube-node-lease").withName(GPU_NODE).get();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(GPU_NODE);
    assertThat(lease.getMetadata().getOwnerReferences().get(0).getUid())
        .isEqualTo(g.getMetadata().getUid());
    var first = lease.getSpec().getRenewTime();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                admin
                    .leases()
                    .inNamespace("kube-node-lease")
                    .withName(GPU_NODE)
                    .get()
                    .getSpec()
                    .getRenewTime()
                    .isAfter(first));
  }

  @Test
  @Order(2)
  void daemonSetPodsRunInitContainersInOrderThenBecomeReady() {
    // Like the toolkit: waits for the driver's marker in an init container, then runs.
    DaemonSet toolkit =
        daemonSet(
            "toolkit",
            "busybox:1.36",
            List.of(
                "sh",
                "-c",
                "until [ -f /run/nvidia/validations/.driver-ctr-ready ]; do sleep 5; done"));
    admin.apps().daemonSets().inNamespace(ns).resource(toolkit).create();
    // It stays initializing until the driver runs.
    // The checks below use the read that showed both the init containers' statuses and the
    // Initialized condition (a CI run once read a status with the first and not the second).
    java.util.concurrent.atomic.AtomicReference<Pod> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Pod p = podOn("toolkit", GPU_NODE);
              seen.set(p);
              return p != null
                  && p.getStatus().getInitContainerStatuses() != null
                  && condition(p, "Initialized") != null;
            });
    Pod waiting = seen.get();
    assertThat(waiting.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(condition(waiting, "Initialized")).isEqualTo("False");

    DaemonSet driver =
        daemonSet("driver", "nvcr.io/nvidia/driver:595.91.07", List.of("nvidia-driver", "init"));
    admin.apps().daemonSets().inNamespace(ns).resource(driver).create();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              DaemonSet ds = admin.apps().daemonSets().inNamespace(ns).withName("toolkit").get();
              assertThat(ds.getStatus().getDesiredNumberScheduled()).isEqualTo(2);
              assertThat(ds.getStatus().getNumberReady()).isEqualTo(2);
            });
    assertThat(gpu.dirs().validations().resolve(".driver-ctr-ready")).exists();
    Pod pod = podOn("toolkit", GPU_NODE);
    assertThat(pod.getStatus().getPhase()).isEqualTo("Running");
    assertThat(pod.getStatus().getStartTime()).isNotNull();
    assertThat(condition(pod, "Initialized")).isEqualTo("True");
    assertThat(condition(pod, "Ready")).isEqualTo("True");
    ContainerStatus init = pod.getStatus().getInitContainerStatuses().get(0);
    assertThat(init.getState().getTerminated().getExitCode()).isZero();
    assertThat(init.getState().getTerminated().getReason()).isEqualTo("Completed");
    ContainerStatus main = pod.getStatus().getContainerStatuses().get(0);
    assertThat(main.getReady()).isTrue();
    assertThat(main.getState().getRunning()).isNotNull();
    assertThat(main.getContainerID()).startsWith("containerd://");
    // The init container's start was after the driver became ready.
    Pod driverPod = podOn("driver", GPU_NODE);
    assertThat(init.getState().getTerminated().getFinishedAt())
        .isGreaterThanOrEqualTo(
            driverPod
                .getStatus()
                .getContainerStatuses()
                .get(0)
                .getState()
                .getRunning()
                .getStartedAt());
  }

  @Test
  @Order(3)
  void failingContainerIsRestartedWithBackOff() {
    admin.pods().inNamespace(ns).resource(pod("crash", "busybox:1.36", "Always")).create();
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(
            () -> {
              ContainerStatus s = status("crash");
              assertThat(s.getRestartCount()).isGreaterThanOrEqualTo(2);
              assertThat(s.getLastState().getTerminated().getExitCode()).isEqualTo(3);
              assertThat(s.getLastState().getTerminated().getReason()).isEqualTo("Error");
            });
    Pod p = admin.pods().inNamespace(ns).withName("crash").get();
    assertThat(p.getStatus().getPhase()).isEqualTo("Running");
    assertThat(condition(p, "Ready")).isEqualTo("False");
  }

  @Test
  @Order(4)
  void completedPodSucceedsAndFailedOneFails() {
    admin
        .pods()
        .inNamespace(ns)
        .resource(pod("vectoradd", "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0", "Never"))
        .create();
    admin.pods().inNamespace(ns).resource(pod("crash-once", "busybox:1.36", "Never")).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(
                      admin
                          .pods()
                          .inNamespace(ns)
                          .withName("vectoradd")
                          .get()
                          .getStatus()
                          .getPhase())
                  .isEqualTo("Succeeded");
              assertThat(
                      admin
                          .pods()
                          .inNamespace(ns)
                          .withName("crash-once")
                          .get()
                          .getStatus()
                          .getPhase())
                  .isEqualTo("Failed");
            });
    assertThat(status("vectoradd").getState().getTerminated().getReason()).isEqualTo("Completed");
    assertThat(status("crash-once").getState().getTerminated().getExitCode()).isEqualTo(3);
    assertThat(status("crash-once").getRestartCount()).isZero();
  }

  @Test
  @Order(5)
  void podsAskingForMoreGpusThanTheNodeHasAreRefused() {
    Pod gpuPod = pod("needs-gpu", "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0", "Never");
    gpuPod
        .getSpec()
        .getContainers()
        .get(0)
        .setResources(
            new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
                .build());
    admin.pods().inNamespace(ns).resource(gpuPod).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Pod p = admin.pods().inNamespace(ns).withName("needs-gpu").get();
              assertThat(p.getStatus().getPhase()).isEqualTo("Failed");
              assertThat(p.getStatus().getReason()).isEqualTo("OutOfnvidia.com/gpu");
              assertThat(p.getStatus().getMessage())
                  .isEqualTo(
                      "Pod Node didn't have enough resource: nvidia.com/gpu, requested: 1, used: 0,"
                          + " capacity: 0");
            });
  }

  @Test
  @Order(6)
  void deletedPodsAreFinalised() {
    admin.pods().inNamespace(ns).withName("crash").delete();
    admin.pods().inNamespace(ns).withName("vectoradd").delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                admin.pods().inNamespace(ns).withName("crash").get() == null
                    && admin.pods().inNamespace(ns).withName("vectoradd").get() == null);
  }

  @Test
  @Order(7)
  void killedKubeletMakesNodeNotReadyAndRestartRecoversIt() throws Exception {
    gpu.kill();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              Node n = admin.nodes().withName(GPU_NODE).get();
              assertThat(ready(n)).isEqualTo("Unknown");
              assertThat(condition(podOn("toolkit", GPU_NODE), "Ready")).isEqualTo("False");
            });
    // Containers kept running while the kubelet was down: the driver's marker is still there.
    assertThat(Files.exists(gpu.dirs().validations().resolve(".driver-ctr-ready"))).isTrue();
    gpu.start();
    assertThat(restarts).containsExactly("sim-gpu started", "sim-cpu started", "sim-gpu restarted");
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(
            () -> {
              Node n = admin.nodes().withName(GPU_NODE).get();
              assertThat(ready(n)).isEqualTo("True");
              assertThat(condition(podOn("toolkit", GPU_NODE), "Ready")).isEqualTo("True");
              DaemonSet ds = admin.apps().daemonSets().inNamespace(ns).withName("toolkit").get();
              assertThat(ds.getStatus().getNumberReady()).isEqualTo(2);
            });
    // The restart count did not change: the kubelet adopted the running containers.
    assertThat(
            podOn("toolkit", GPU_NODE).getStatus().getContainerStatuses().get(0).getRestartCount())
        .isZero();
  }

  static DaemonSet daemonSet(String name, String image, List<String> initCommand) {
    var b =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNewSelector()
            .withMatchLabels(Map.of("app", name))
            .endSelector()
            .withNewTemplate()
            .withNewMetadata()
            .withLabels(Map.of("app", name))
            .endMetadata()
            .withNewSpec();
    if (name.equals("toolkit")) {
      b =
          b.addNewInitContainer()
              .withName("driver-validation")
              .withImage(image)
              .withCommand(initCommand)
              .endInitContainer();
      b =
          b.addNewContainer()
              .withName("toolkit")
              .withImage(image)
              .withCommand("sleep", "infinity")
              .endContainer();
    } else {
      b =
          b.addNewContainer()
              .withName("nvidia-driver-ctr")
              .withImage(image)
              .withArgs(initCommand)
              .endContainer();
    }
    return b.endSpec().endTemplate().endSpec().build();
  }

  static Pod pod(String name, String image, String restartPolicy) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(GPU_NODE)
        .withRestartPolicy(restartPolicy)
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .endContainer()
        .endSpec()
        .build();
  }

  static ContainerStatus status(String pod) {
    Pod p = admin.pods().inNamespace(ns).withName(pod).get();
    assertThat(p.getStatus().getContainerStatuses()).isNotEmpty();
    return p.getStatus().getContainerStatuses().get(0);
  }

  static Pod podOn(String app, String node) {
    return admin.pods().inNamespace(ns).withLabel("app", app).list().getItems().stream()
        .filter(p -> node.equals(p.getSpec().getNodeName()))
        .findFirst()
        .orElse(null);
  }

  static String ready(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .map(NodeCondition::getStatus)
        .findFirst()
        .orElse(null);
  }

  static String condition(Pod p, String type) {
    if (p == null || p.getStatus() == null || p.getStatus().getConditions() == null) {
      return null;
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .map(PodCondition::getStatus)
        .findFirst()
        .orElse(null);
  }
}
