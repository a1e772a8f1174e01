package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the sandbox operands' containers run, read from the original's manifests' command lines. */
class EntrypointTest {
  /** The KubeVirt device plugin's vgpu-devices-validation init container (the original's arg). */
  static final String VGPU_DEVICES_VALIDATION =
      "until [ -f /run/nvidia/validations/workload-type ]; do echo waiting for the workload type;"
          + " sleep 5; done; if [ \"$(cat /run/nvidia/validations/workload-type)\" != \"vm-vgpu\""
          + " ]; then echo this workload does not use vGPU devices; exit 0; fi; until [ -f"
          + " /run/nvidia/validations/vgpu-devices-ready ]; do echo waiting for vGPU devices to be"
          + " ready; sleep 5; done";

  static Container shell(String name, String script) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("nvcr.io/nvidia/gpu-operator:v26.7.0")
        .withCommand("sh", "-c")
        .withArgs(script)
        .build();
  }

  @Test
  void aGatedScriptWaitsForTheMarkerItReadsAndOnlyThenForTheRest() {
    Entrypoint ep =
        Entrypoint.of(shell("vgpu-devices-validation", VGPU_DEVICES_VALIDATION), p -> null);
    assertThat(ep.program()).isNull();
    assertThat(ep.waits()).containsExactly("workload-type");
    assertThat(ep.gate())
        .isEqualTo(
            new Entrypoint.Gate(
                "workload-type", "vm-vgpu", java.util.List.of("vgpu-devices-ready")));
  }

  @Test
  void alternativesInALoopConditionAreOneWait(@TempDir Path validations) throws Exception {
    Entrypoint ep =
        Entrypoint.of(
            shell(
                "vgpu-manager-validation",
                "until [ -f /run/nvidia/validations/vgpu-manager-ready ] || [ -f"
                    + " /run/nvidia/validations/host-vgpu-manager-ready ]; do echo waiting for"
                    + " NVIDIA vGPU Manager to be setup; sleep 5; done"),
            p -> null);
    assertThat(ep.waits()).containsExactly("vgpu-manager-ready|host-vgpu-manager-ready");
    assertThat(ep.gate()).isNull();
    String wait = ep.waits().get(0);
    assertThat(Entrypoint.present(validations, wait)).isFalse();
    Files.writeString(validations.resolve("host-vgpu-manager-ready"), "");
    assertThat(Entrypoint.present(validations, wait)).isTrue();
  }

  @Test
  void theVfioManagersOneLinerRunsVfioManage() {
    Entrypoint ep =
        Entrypoint.of(
            new ContainerBuilder()
                .withName("nvidia-vfio-manager")
                .withImage("nvcr.io/nvidia/cloud-native/k8s-driver-manager:v0.12.0")
                .withCommand("/bin/sh", "-c")
                .withArgs("vfio-manage bind --all && sleep infinity")
                .build(),
            p -> null);
    assertThat(ep.program()).isEqualTo("vfio-manage");
    assertThat(ep.args()).containsExactly("bind", "--all");
  }

  @Test
  void imagesWithoutACommandRunTheirOwnProgramWithTheArgs() {
    Entrypoint kubevirt =
        Entrypoint.of(
            new ContainerBuilder()
                .withName("nvidia-sandbox-device-plugin-ctr")
                .withImage("nvcr.io/nvidia/kubevirt-gpu-device-plugin:v1.6.0")
                .withArgs("--verbose")
                .build(),
            p -> null);
    assertThat(kubevirt.program()).isEqualTo("nvidia-kubevirt-gpu-device-plugin");
    assertThat(kubevirt.args()).containsExactly("--verbose");
    Entrypoint vgpuDm =
        Entrypoint.of(
            new ContainerBuilder()
                .withName("nvidia-vgpu-device-manager")
                .withImage("registry.example.com/mirror/vgpu-device-manager@sha256:abc")
                .build(),
            p -> null);
    assertThat(vgpuDm.program()).isEqualTo("nvidia-k8s-vgpu-dm");
    // An image not in the table keeps its unknown entrypoint.
    assertThat(
            Entrypoint.of(
                    new ContainerBuilder().withName("c").withImage("nvcr.io/nvidia/dcgm:4").build(),
                    p -> null)
                .program())
        .isNull();
  }

  @Test
  void theVgpuManagersNvidiaDriverIsNotTheDriverImages() {
    Container vgpu =
        new ContainerBuilder()
            .withName("nvidia-vgpu-manager-ctr")
            .withImage("registry.example.com/vgpu/vgpu-manager:580.65.05-ubuntu24.04")
            .withCommand("nvidia-driver")
            .withArgs("init")
            .build();
    assertThat(Entrypoint.of(vgpu, p -> null).program()).isEqualTo("nvidia-vgpu-manager");
    Container driver =
        new ContainerBuilder(vgpu)
            .withName("nvidia-driver-ctr")
            .withImage("nvcr.io/nvidia/driver:595")
            .build();
    assertThat(Entrypoint.of(driver, p -> null).program()).isEqualTo("nvidia-driver");
  }

  @Test
  void repositoryIsTheImagesLastPathSegmentWithoutTagOrDigest() {
    assertThat(Entrypoint.repository("nvcr.io/nvidia/cloud-native/vgpu-device-manager:v0.5.0"))
        .isEqualTo("vgpu-device-manager");
    assertThat(Entrypoint.repository("localhost:5000/kubevirt-gpu-device-plugin"))
        .isEqualTo("kubevirt-gpu-device-plugin");
    assertThat(Entrypoint.repository("x@sha256:1")).isEqualTo("x");
    assertThat(Entrypoint.repository(null)).isEmpty();
  }
}
