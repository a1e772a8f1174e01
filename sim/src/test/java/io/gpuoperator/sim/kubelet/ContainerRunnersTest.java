package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerRunnersTest {
  static final Pod POD = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();

  final ContainerRunners runners =
      ContainerRunners.builder().agent("validator", ctx -> 0, false).build();

  static Container container(String image, String... commandLine) {
    return new ContainerBuilder().withName("c").withImage(image).withArgs(commandLine).build();
  }

  @Test
  void agentSubcommandRunsInProcess() {
    ContainerRunner r =
        runners.select(
            NodeDescription.cpuNode("n"),
            POD,
            container(
                "ghcr.io/gpu-operator-java/gpu-operator:0.1.0",
                "validator",
                "--component",
                "driver"),
            true);
    assertThat(r).isInstanceOf(InProcessContainerRunner.class);
    assertThat(((InProcessContainerRunner) r).name()).isEqualTo("validator");
    Container withBinary =
        new ContainerBuilder()
            .withName("c")
            .withImage("registry.local/gpu-operator@sha256:abc")
            .withCommand("/usr/bin/gpu-operator")
            .withArgs("validator")
            .build();
    assertThat(runners.select(NodeDescription.cpuNode("n"), POD, withBinary, true))
        .isInstanceOf(InProcessContainerRunner.class);
  }

  @Test
  void agentsRunOnWhateverImageThePolicyNames() {
    // The upstream sample policy puts our validator command line on NVIDIA's validator image.
    assertThat(
            runners.select(
                NodeDescription.cpuNode("n"),
                POD,
                container(
                    "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.0", "validator"),
                true))
        .isInstanceOf(InProcessContainerRunner.class);
  }

  @Test
  void shellCommandsAndUnknownAgentsGetDeclaredBehaviour() {
    Container shell =
        new ContainerBuilder()
            .withName("c")
            .withImage("ghcr.io/x/gpu-operator:1")
            .withCommand("sh", "-c")
            .withArgs("validator")
            .build();
    assertThat(runners.select(NodeDescription.cpuNode("n"), POD, shell, true))
        .isInstanceOf(ImageContainerRunner.class);
    assertThat(
            runners.select(
                NodeDescription.cpuNode("n"),
                POD,
                container("ghcr.io/x/gpu-operator:1", "exporter"),
                false))
        .isInstanceOf(ImageContainerRunner.class);
  }

  @Test
  void nodeOverrideWinsOverEverything() {
    DeclaredBehaviour fail = DeclaredBehaviour.fails(Duration.ofSeconds(1), 2);
    NodeDescription node =
        NodeDescription.cpuNode("n")
            .withOverrides(List.of(new BehaviourOverride("gpu-operator", null, null, fail)));
    ContainerRunner r =
        runners.select(node, POD, container("ghcr.io/x/gpu-operator:1", "validator"), true);
    assertThat(((DeclaredContainerRunner) r).behaviour()).isEqualTo(fail);
  }

  private DeclaredBehaviour declared(NodeDescription node, Container c, boolean init) {
    return runners.declared(node, c, init, Entrypoint.of(c, path -> null), Map.of());
  }

  @Test
  void declaredDefaults() {
    assertThat(
            declared(
                    NodeDescription.cpuNode("n"),
                    container("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12"),
                    false)
                .exitAfter())
        .isNotNull();
    DeclaredBehaviour waits =
        declared(
            NodeDescription.cpuNode("n"),
            container(
                "busybox",
                "sh",
                "-c",
                "until [ -f /run/nvidia/validations/toolkit-ready ]; do sleep 5; done"),
            true);
    assertThat(waits.waitFor()).containsExactly("toolkit-ready");
    assertThat(waits.exitAfter()).isNotNull();
    DeclaredBehaviour daemon =
        declared(NodeDescription.cpuNode("n"), container("nvcr.io/nvidia/dcgm:4"), false);
    assertThat(daemon.exitAfter()).isNull();
    assertThat(daemon.ready()).isTrue();
  }

  @Test
  void nvidiasDriverWritesItsStartupProbesFileWithTheGpuDirectFlags() {
    Container driver =
        new ContainerBuilder()
            .withName("nvidia-driver-ctr")
            .withImage("nvcr.io/nvidia/driver:595.91.07-ubuntu22.04")
            .withCommand("nvidia-driver")
            .withArgs("init")
            .build();
    DeclaredBehaviour b =
        runners.declared(
            NodeDescription.cpuNode("n"),
            driver,
            false,
            Entrypoint.of(driver, path -> null),
            Map.of("GDS_ENABLED", "true"));
    assertThat(b.files())
        .containsEntry(
            "/run/nvidia/validations/.driver-ctr-ready",
            "GDRCOPY_ENABLED: false\nGDS_ENABLED: true\nGPU_DIRECT_RDMA_ENABLED: false\n");
    // While it runs, the node's kernel lists the driver's modules and GDS's nvidia_fs only.
    assertThat(b.files().get("/proc/modules").lines().map(l -> l.split(" ")[0]))
        .containsExactly("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_fs");
  }

  @Test
  void nvidiasToolkitWaitsForTheDriverThenLeavesRuntimeConfigAndCdiSpec() {
    Container toolkit =
        new ContainerBuilder()
            .withName("nvidia-container-toolkit-ctr")
            .withImage("nvcr.io/nvidia/k8s/container-toolkit:v1.20.0")
            .withCommand("/bin/sh", "-c")
            .withArgs("/bin/entrypoint.sh")
            .build();
    String script =
        "until [ -f /run/nvidia/validations/driver-ready ]; do sleep 5; done\n"
            + "set -o allexport\n. /run/nvidia/validations/driver-ready\nexec nvidia-toolkit\n";
    Entrypoint ep =
        Entrypoint.of(toolkit, path -> path.equals("/bin/entrypoint.sh") ? script : null);
    assertThat(ep.program()).isEqualTo("nvidia-toolkit");
    assertThat(ep.waits()).containsExactly("driver-ready");
    assertThat(ep.sourcesDriverReady()).isTrue();
    DeclaredBehaviour b =
        runners.declared(NodeDescription.gpuNode("g", "L4", 2), toolkit, false, ep, Map.of());
    assertThat(b.waitFor()).containsExactly("driver-ready");
    assertThat(b.files())
        .containsKeys("/etc/containerd/config.toml", "/var/run/cdi/management.nvidia.com-gpu.yaml");
    assertThat(b.files().get("/var/run/cdi/management.nvidia.com-gpu.yaml"))
        .contains("kind: management.nvidia.com/gpu", "name: \"1\"", "/dev/nvidia1")
        .doesNotContain("/dev/nvidia2");
  }

  @Test
  void entrypointsOfTheOriginalsContract() {
    Entrypoint validator = Entrypoint.of(container("x", "sh", "-c", "nvidia-validator"), p -> null);
    assertThat(validator.program()).isEqualTo("nvidia-validator");
    assertThat(validator.waits()).isEmpty();
    Entrypoint sleeper =
        Entrypoint.of(
            container(
                "x",
                "sh",
                "-c",
                "echo all validations are successful; while true; do sleep 86400; done"),
            p -> null);
    assertThat(sleeper.program()).isNull();
    Entrypoint gfd =
        Entrypoint.of(
            new ContainerBuilder().withName("c").withCommand("gpu-feature-discovery").build(),
            p -> null);
    assertThat(gfd.program()).isEqualTo("gpu-feature-discovery");
    Entrypoint mounts =
        Entrypoint.of(
            new ContainerBuilder()
                .withName("c")
                .withCommand("mps-control-daemon", "mount-shm")
                .build(),
            p -> null);
    assertThat(mounts.program()).isEqualTo("mps-control-daemon");
    assertThat(mounts.args()).containsExactly("mount-shm");
    // A script file nobody can read: unknown, so the container just runs.
    assertThat(
            Entrypoint.of(container("x", "/bin/sh", "-c", "/bin/entrypoint.sh"), p -> null)
                .program())
        .isNull();
  }

  @Test
  void nvidiaImagesAreRunByWhatTheyExecute() {
    ContainerRunners withPrograms =
        ContainerRunners.builder().program("nvidia-validator", ctx -> 0, false).build();
    assertThat(
            withPrograms.select(
                NodeDescription.cpuNode("n"),
                POD,
                container("nvcr.io/nvidia/gpu-operator:v26.7.0", "sh", "-c", "nvidia-validator"),
                true))
        .isInstanceOf(ImageContainerRunner.class);
    assertThat(withPrograms.program("nvidia-validator")).isNotNull();
    assertThat(withPrograms.program("nvidia-device-plugin")).isNull();
  }

  @Test
  void agentNameComesFromTheCommandLine() {
    assertThat(ContainerRunners.agentName(container("any", "validator", "--component", "driver")))
        .isEqualTo("validator");
    Container binary =
        new ContainerBuilder()
            .withName("c")
            .withCommand("/usr/bin/gpu-operator")
            .withArgs("toolkit")
            .build();
    assertThat(ContainerRunners.agentName(binary)).isEqualTo("toolkit");
    Container driver =
        new ContainerBuilder().withName("c").withCommand("nvidia-driver").withArgs("init").build();
    assertThat(ContainerRunners.agentName(driver)).isNull();
    assertThat(ContainerRunners.agentName(container("any"))).isNull();
  }
}
