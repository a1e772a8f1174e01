package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
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
        .isInstanceOf(DeclaredContainerRunner.class);
    assertThat(
            runners.select(
                NodeDescription.cpuNode("n"),
                POD,
                container("ghcr.io/x/gpu-operator:1", "exporter"),
                false))
        .isInstanceOf(DeclaredContainerRunner.class);
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

  @Test
  void declaredDefaults() {
    assertThat(
            runners
                .declared(
                    NodeDescription.cpuNode("n"),
                    container("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12"),
                    false)
                .exitAfter())
        .isNotNull();
    DeclaredBehaviour waits =
        runners.declared(
            NodeDescription.cpuNode("n"),
            container(
                "busybox",
                "sh",
                "-c",
                "until [ -f /run/nvidia/validations/toolkit-ready ]; do sleep 5; done"),
            true);
    assertThat(waits.waitFor()).containsExactly("toolkit-ready");
    assertThat(waits.exitAfter()).isNotNull();
    assertThat(
            runners
                .declared(
                    NodeDescription.cpuNode("n"),
                    container("nvcr.io/nvidia/driver:595.91.07"),
                    false)
                .writes())
        .containsExactly(".driver-ctr-ready");
    DeclaredBehaviour daemon =
        runners.declared(NodeDescription.cpuNode("n"), container("nvcr.io/nvidia/dcgm:4"), false);
    assertThat(daemon.exitAfter()).isNull();
    assertThat(daemon.ready()).isTrue();
  }

  @Test
  void toolkitWithoutAnAgentLeavesRuntimeConfigAndCdiSpec() {
    DeclaredBehaviour b =
        runners.declared(
            NodeDescription.gpuNode("g", "L4", 2),
            container("nvcr.io/nvidia/k8s/container-toolkit:v1", "toolkit"),
            false);
    assertThat(b.files())
        .containsKeys("/etc/containerd/config.toml", "/var/run/cdi/management.nvidia.com-gpu.yaml");
    assertThat(b.files().get("/var/run/cdi/management.nvidia.com-gpu.yaml"))
        .contains("kind: management.nvidia.com/gpu", "name: \"1\"", "/dev/nvidia1")
        .doesNotContain("/dev/nvidia2");
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
