package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.ContainerRunners;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import io.gpuoperator.sim.kubelet.SimulatedKubelet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real validator runs in-process as the init container of a pod on a simulated node: it waits
 * for the simulated NVIDIA driver container, checks the node's simulated GPUs and writes the node's
 * own driver-ready marker.
 */
@ExtendWith(ControlPlaneExtension.class)
class ValidatorAgentIT {
  @TempDir Path tmp;
  final List<SimulatedKubelet> kubelets = new ArrayList<>();
  SimulatedGpuBackends backends;

  @AfterEach
  void stop() {
    kubelets.forEach(SimulatedKubelet::close);
    if (backends != null) {
      backends.close();
    }
  }

  SimulatedKubelet start(
      KubernetesClient client, List<NodeDescription> nodes, NodeDescription d, int index)
      throws Exception {
    ContainerRunners runners =
        ContainerRunners.builder()
            .agent("validator", new ValidatorAgent(backends::opener), false)
            .build();
    SimulatedKubelet k =
        SimulatedKubelet.builder(client, d, NodeDirs.create(tmp, d.name()))
            .index(index)
            .runners(runners)
            .agentClient(client)
            .options(
                KubeletOptions.defaults().withBackOff(Duration.ofSeconds(1), Duration.ofSeconds(2)))
            .build();
    kubelets.add(k);
    k.start();
    return k;
  }

  @Test
  void driverValidationWaitsForTheDriverThenWritesTheNodesMarker(KubernetesClient client)
      throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "validator-agent");
    NodeDescription h100 = NodeDescription.gpuNode("agent-h100", "H100-SXM5-80GB", 8);
    NodeDescription l4 = NodeDescription.gpuNode("agent-l4", "L4", 2);
    backends = new SimulatedGpuBackends(List.of(h100, l4));
    SimulatedKubelet kh = start(client, List.of(h100, l4), h100, 20);
    SimulatedKubelet kl = start(client, List.of(h100, l4), l4, 21);

    for (NodeDescription d : List.of(h100, l4)) {
      client.pods().inNamespace(ns).resource(validatorPod(d.name())).create();
    }
    // Without the driver container the validator keeps waiting for .driver-ctr-ready.
    Thread.sleep(2000);
    assertThat(phase(client, ns, "toolkit-agent-h100")).isEqualTo("Pending");
    assertThat(kh.dirs().validations().resolve("driver-ready")).doesNotExist();

    for (NodeDescription d : List.of(h100, l4)) {
      client.pods().inNamespace(ns).resource(driverPod(d.name())).create();
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(ready(client, ns, "toolkit-agent-h100")).isTrue();
              assertThat(ready(client, ns, "toolkit-agent-l4")).isTrue();
            });
    assertThat(Files.readString(kh.dirs().validations().resolve("driver-ready")))
        .contains("IS_HOST_DRIVER=false", "GPU_COUNT=8", "DRIVER_VERSION=550.54.15");
    assertThat(Files.readString(kl.dirs().validations().resolve("driver-ready")))
        .contains("GPU_COUNT=2");
    ContainerStatus init =
        client
            .pods()
            .inNamespace(ns)
            .withName("toolkit-agent-h100")
            .get()
            .getStatus()
            .getInitContainerStatuses()
            .get(0);
    assertThat(init.getState().getTerminated().getExitCode()).isZero();
  }

  @Test
  void withGdsOnTheDriverStepChecksNvidiaFsAndWritesItsMarker(KubernetesClient client)
      throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "validator-agent-gds");
    NodeDescription d = NodeDescription.gpuNode("agent-gds", "H100-SXM5-80GB", 8);
    backends = new SimulatedGpuBackends(List.of(d));
    SimulatedKubelet k = start(client, List.of(d), d, 23);
    Pod driver = driverPod(d.name());
    driver
        .getSpec()
        .getContainers()
        .get(0)
        .setEnv(List.of(new io.fabric8.kubernetes.api.model.EnvVar("GDS_ENABLED", "true", null)));
    client.pods().inNamespace(ns).resource(driver).create();
    client.pods().inNamespace(ns).resource(validatorPod(d.name())).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(ready(client, ns, "toolkit-agent-gds")).isTrue());
    // The driver container's flags enabled GDS; its modules include nvidia_fs; the validator
    // checked it and wrote the marker before driver-ready; the others are off: no markers.
    assertThat(k.dirs().validations().resolve("nvidia-fs-ready")).exists();
    assertThat(k.dirs().validations().resolve("driver-ready")).exists();
    assertThat(k.dirs().validations().resolve("gdrcopy-ready")).doesNotExist();
    assertThat(k.dirs().validations().resolve("nvidia-peermem-ready")).doesNotExist();
  }

  @Test
  void driverValidationFailsOnANodeWithoutGpus(KubernetesClient client) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "validator-agent-cpu");
    NodeDescription cpu = NodeDescription.cpuNode("agent-cpu");
    backends = new SimulatedGpuBackends(List.of(cpu));
    start(client, List.of(cpu), cpu, 22);
    client.pods().inNamespace(ns).resource(driverPod(cpu.name())).create();
    client.pods().inNamespace(ns).resource(validatorPod(cpu.name())).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              List<ContainerStatus> inits =
                  client
                      .pods()
                      .inNamespace(ns)
                      .withName("toolkit-agent-cpu")
                      .get()
                      .getStatus()
                      .getInitContainerStatuses();
              assertThat(inits).isNotEmpty();
              ContainerStatus s = inits.get(0);
              assertThat(s.getRestartCount()).isGreaterThanOrEqualTo(1);
              assertThat(s.getLastState().getTerminated().getExitCode()).isEqualTo(1);
            });
    assertThat(phase(client, ns, "toolkit-agent-cpu")).isEqualTo("Pending");
  }

  static Pod validatorPod(String node) {
    return WorkloadPods.placedPod(
        "toolkit-" + node,
        node,
        new ContainerBuilder().withName("toolkit").withImage("busybox:1.36").build(),
        new ContainerBuilder()
            .withName("driver-validation")
            .withImage(OperandImages.projectImage())
            .withArgs("validator", "--component", "driver")
            .addNewEnv()
            .withName("WITH_WAIT")
            .withValue("true")
            .endEnv()
            .build());
  }

  static Pod driverPod(String node) {
    return WorkloadPods.placedPod(
        "driver-" + node,
        node,
        new ContainerBuilder()
            .withName("nvidia-driver-ctr")
            .withImage("nvcr.io/nvidia/driver:595.91.07")
            // What the original's driver container runs; its startup probe writes
            // .driver-ctr-ready.
            .withCommand("nvidia-driver")
            .withArgs("init")
            .build());
  }

  static String phase(KubernetesClient client, String ns, String name) {
    Pod p = client.pods().inNamespace(ns).withName(name).get();
    return p.getStatus() == null ? null : p.getStatus().getPhase();
  }

  static boolean ready(KubernetesClient client, String ns, String name) {
    Pod p = client.pods().inNamespace(ns).withName(name).get();
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }
}
