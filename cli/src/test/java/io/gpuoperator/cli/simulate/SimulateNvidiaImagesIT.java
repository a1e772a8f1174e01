package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.gpuoperator.sim.kubelet.NodeDescription;
import io.gpuoperator.sim.kubelet.NodeDirs;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * End to end with NVIDIA's images: a policy written like the original chart's, naming NVIDIA's
 * image for every operand and a time-slicing device-plugin config. The operator renders the
 * original's container contract; the simulated node runs each container by what NVIDIA's image
 * executes and follows the original's marker-file protocol (the driver's {@code .driver-ctr-ready},
 * the validator's {@code driver-ready} and {@code toolkit-ready}, the entrypoints waiting for
 * them), and the cluster becomes ready.
 */
class SimulateNvidiaImagesIT {
  static final String GPU = "nv-l4";
  static final String CPU = "nv-cpu";
  static final String NS = "gpu-operator";

  static final String POLICY =
      Simulation.clusterPolicy(
          """
          mig:
            strategy: single
          validator:
            repository: nvcr.io/nvidia
            image: gpu-operator
            version: main-latest
          driver:
            repository: nvcr.io/nvidia
            image: driver
            version: "595.91.07"
          toolkit:
            repository: nvcr.io/nvidia/k8s
            image: container-toolkit
            version: v1.20.0
          devicePlugin:
            repository: nvcr.io/nvidia
            image: k8s-device-plugin
            version: v0.20.0
            config:
              name: time-slicing
              default: ts2
          gfd:
            repository: nvcr.io/nvidia
            image: k8s-device-plugin
            version: v0.20.0
          dcgm:
            enabled: false
          dcgmExporter:
            repository: nvcr.io/nvidia/k8s
            image: dcgm-exporter
            version: 4.6.0-4.8.3-distroless
          migManager:
            repository: nvcr.io/nvidia/cloud-native
            image: k8s-mig-manager
            version: v0.15.0
          """);

  @RegisterExtension
  static final SimulationFixture SIM =
      SimulationFixture.of(
          b ->
              b.policy(POLICY, "SimulateNvidiaImagesIT policy")
                  .beforePolicy(SimulationFixture.timeSlicing(NS, "ts2", 2)),
          NodeDescription.gpuNode(GPU, "L4", 1),
          NodeDescription.cpuNode(CPU));

  @Test
  void nvidiasImagesRunTheOriginalsContractAndTheClusterBecomesReady() throws Exception {
    SimulationStatus status = SIM.sim().awaitReady(Duration.ofMinutes(5), s -> {});
    assertThat(status.ready()).as("not ready: %s", status.reasons()).isTrue();

    // The original's contract ran, not our agents' command lines.
    Container plugin = container("nvidia-device-plugin-daemonset", "nvidia-device-plugin");
    assertThat(plugin.getImage()).isEqualTo("nvcr.io/nvidia/k8s-device-plugin:v0.20.0");
    assertThat(plugin.getCommand()).containsExactly("/bin/sh", "-c");
    assertThat(plugin.getArgs()).containsExactly("/bin/entrypoint.sh");
    Container driverStep = initContainer("nvidia-operator-validator", "driver-validation");
    assertThat(driverStep.getImage()).isEqualTo("nvcr.io/nvidia/gpu-operator:main-latest");
    assertThat(driverStep.getArgs()).containsExactly("nvidia-validator");
    assertThat(
            container("nvidia-container-toolkit-daemonset", "nvidia-container-toolkit-ctr")
                .getImage())
        .isEqualTo("nvcr.io/nvidia/k8s/container-toolkit:v1.20.0");
    assertThat(SIM.client().apps().daemonSets().inNamespace(NS).list().getItems())
        .flatExtracting(ds -> ds.getSpec().getTemplate().getSpec().getContainers())
        .extracting(Container::getImage)
        .noneMatch(i -> i.contains("gpu-operator-java"));

    // The marker files of the original's protocol, on the node.
    NodeDirs dirs = SIM.sim().kubelet(GPU).dirs();
    assertThat(Files.readString(dirs.validations().resolve(".driver-ctr-ready")))
        .isEqualTo("GDRCOPY_ENABLED: false\nGDS_ENABLED: false\nGPU_DIRECT_RDMA_ENABLED: false\n");
    assertThat(Files.readString(dirs.validations().resolve("driver-ready")))
        .contains("IS_HOST_DRIVER=false", "NVIDIA_DRIVER_ROOT=");
    assertThat(dirs.validations().resolve("toolkit-ready")).exists();
    assertThat(dirs.validations().resolve("cuda-ready")).exists();
    assertThat(dirs.validations().resolve("plugin-ready")).exists();

    // config-manager picked the default time-slicing entry for both the plugin and GFD.
    SimulationStatus.NodeRow row =
        status.nodes().stream().filter(r -> r.name().equals(GPU)).findFirst().orElseThrow();
    assertThat(row.gpuAllocatable()).isEqualTo(2);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(SIM.client().nodes().withName(GPU).get().getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.present", "true")
                    .containsEntry("nvidia.com/gpu.replicas", "2")
                    .containsEntry("nvidia.com/gpu.sharing-strategy", "time-slicing")
                    .containsEntry("nvidia.com/gpu.product", "NVIDIA-L4-SHARED"));
    assertThat(SIM.client().nodes().withName(CPU).get().getMetadata().getLabels())
        .doesNotContainKey("nvidia.com/gpu.present");
  }

  private static Container container(String daemonSet, String name) {
    return SIM.daemonSet(daemonSet).getSpec().getTemplate().getSpec().getContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static Container initContainer(String daemonSet, String name) {
    return SIM.daemonSet(daemonSet).getSpec().getTemplate().getSpec().getInitContainers().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
