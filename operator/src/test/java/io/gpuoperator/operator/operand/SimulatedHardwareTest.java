package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * SIMULATED_HARDWARE_DIR: only containers that run one of our agents get the simulated backend over
 * the folder's node profile, and the folder mounted read-only; shell steps and NVIDIA's images are
 * left alone.
 */
class SimulatedHardwareTest {
  static final String DIR = "/etc/gpu-operator/simulated";
  static final String OURS = OperandImages.projectImage();
  static final Set<String> AGENTS = Set.of("validator", "device-plugin");

  static Container container(String name, String image, List<String> command, String... args) {
    return new ContainerBuilder()
        .withName(name)
        .withImage(image)
        .withCommand(command)
        .withArgs(args)
        .build();
  }

  /** A pod with agent containers, shell steps, NVIDIA's image and an unknown subcommand. */
  static PodSpec pod() {
    return new PodSpecBuilder()
        .withInitContainers(container("driver-validation", OURS, List.of(), "validator"))
        .withContainers(
            container("plugin", OURS, null, "device-plugin"),
            container("wait", OURS, List.of("sh", "-c"), "until [ -f x ]; do sleep 5; done"),
            // A shell step is no agent even when its script is an agent's name.
            container("shell", OURS, List.of("sh", "-c"), "validator"),
            container("nvidia", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", null, "device-plugin"),
            container("other", OURS, null, "not-an-agent"))
        .build();
  }

  static Map<String, String> env(Container c) {
    Map<String, String> out = new java.util.HashMap<>();
    if (c.getEnv() != null) {
      c.getEnv().forEach(e -> out.put(e.getName(), e.getValue()));
    }
    return out;
  }

  static boolean simulated(Container c) {
    return "simulated".equals(DaemonSets.env(c, "GPU_BACKEND"));
  }

  @Test
  void agentContainersGetTheBackendTheProfileAndAReadOnlyMount() {
    PodSpec pod = pod();
    SimulatedHardware.apply(pod, DIR, AGENTS);
    for (String name : List.of("driver-validation", "plugin")) {
      Container c = DaemonSets.container(pod, name);
      assertThat(env(c))
          .as(name)
          .containsEntry("GPU_BACKEND", "simulated")
          .containsEntry("GPU_NODE_PROFILE", DIR + "/node-profile.yaml");
      assertThat(c.getVolumeMounts())
          .as(name)
          .singleElement()
          .satisfies(
              m -> {
                assertThat(m.getName()).isEqualTo(SimulatedHardware.VOLUME);
                assertThat(m.getMountPath()).isEqualTo(DIR);
                assertThat(m.getReadOnly()).isTrue();
              });
    }
    Volume v = DaemonSets.volume(pod, SimulatedHardware.VOLUME);
    assertThat(v.getHostPath().getPath()).isEqualTo(DIR);
    assertThat(v.getHostPath().getType()).isEqualTo("Directory");
    assertThat(pod.getVolumes()).hasSize(1);
  }

  @Test
  void shellStepsNvidiasImagesAndOtherSubcommandsAreLeftAlone() {
    PodSpec pod = pod();
    SimulatedHardware.apply(pod, DIR, AGENTS);
    for (String name : List.of("wait", "shell", "nvidia", "other")) {
      Container c = DaemonSets.container(pod, name);
      assertThat(c.getEnv()).as(name).isNullOrEmpty();
      assertThat(c.getVolumeMounts()).as(name).isNullOrEmpty();
    }
  }

  @Test
  void aPodWithoutAgentsGetsNoVolume() {
    PodSpec pod =
        new PodSpecBuilder()
            .withContainers(container("wait", OURS, List.of("sh", "-c"), "sleep 1"))
            .build();
    SimulatedHardware.apply(pod, DIR, AGENTS);
    assertThat(pod.getVolumes()).isNullOrEmpty();
  }

  @Test
  void applyingTwiceAddsNothingTwice() {
    PodSpec once = pod();
    SimulatedHardware.apply(once, DIR, AGENTS);
    PodSpec twice = new PodSpecBuilder(once).build();
    SimulatedHardware.apply(twice, DIR, AGENTS);
    assertThat(twice).isEqualTo(once);
    assertThat(DaemonSets.container(twice, "plugin").getVolumeMounts()).hasSize(1);
  }

  @Test
  void theValidatorsCudaWorkloadRunsItsOwnImageUnlessOneIsSet() {
    PodSpec pod = pod();
    SimulatedHardware.apply(pod, DIR, AGENTS);
    assertThat(env(DaemonSets.container(pod, "driver-validation")))
        .containsEntry("CUDA_WORKLOAD_IMAGE", OURS);
    assertThat(env(DaemonSets.container(pod, "plugin"))).doesNotContainKey("CUDA_WORKLOAD_IMAGE");

    PodSpec named = pod();
    DaemonSets.setEnv(
        DaemonSets.container(named, "driver-validation"),
        "CUDA_WORKLOAD_IMAGE",
        "registry.local/cuda-sample:vectoradd");
    SimulatedHardware.apply(named, DIR, AGENTS);
    assertThat(env(DaemonSets.container(named, "driver-validation")))
        .containsEntry("CUDA_WORKLOAD_IMAGE", "registry.local/cuda-sample:vectoradd");
  }

  @Test
  void withoutTheSettingNothingChanges() {
    PodSpec pod = pod();
    SimulatedHardware.apply(pod, null, AGENTS);
    assertThat(pod).isEqualTo(pod());
  }

  /** Every DaemonSet container of the rendered stack that has the simulated backend. */
  /** The toolkit's and validator's containers: simulated whether the node agents run or not. */
  static final List<String> TOOLKIT_AND_VALIDATOR =
      List.of(
          "nvidia-container-toolkit-daemonset/driver-validation",
          "nvidia-container-toolkit-daemonset/nvidia-container-toolkit-ctr",
          "nvidia-operator-validator/driver-validation",
          "nvidia-operator-validator/toolkit-validation",
          "nvidia-operator-validator/cuda-validation",
          "nvidia-operator-validator/plugin-validation");

  static String[] concat(List<String> first, String... rest) {
    return Stream.concat(first.stream(), Stream.of(rest)).toArray(String[]::new);
  }

  static Set<String> simulatedContainers(OperatorConfig config, ClusterFacts facts) {
    var policy =
        Policies.withSpec(
            "  migManager: {enabled: true}\n  dcgmExporter: {enabled: true}\n"
                + "  gfd: {enabled: true}\n  dcgm: {enabled: true}\n"
                + "  nodeStatusExporter: {enabled: true}\n");
    Set<String> out = new TreeSet<>();
    for (var operand : Operands.renderAll(policy, facts, config)) {
      for (var object : operand.objects()) {
        if (object instanceof DaemonSet ds) {
          // Stamped after the change: turning the setting on or off rolls the DaemonSets.
          assertThat(ManagedObjects.recordedHash(ds)).isEqualTo(ManagedObjects.hash(ds));
          PodSpec pod = ds.getSpec().getTemplate().getSpec();
          for (Container c : DaemonSets.allContainers(pod)) {
            if (!simulated(c)) {
              continue;
            }
            String where = ds.getMetadata().getName() + "/" + c.getName();
            out.add(where);
            assertThat(env(c))
                .as(where)
                .containsEntry("GPU_NODE_PROFILE", DIR + "/node-profile.yaml");
            assertThat(c.getVolumeMounts())
                .as(where)
                .filteredOn(m -> m.getName().equals(SimulatedHardware.VOLUME))
                .extracting(VolumeMount::getMountPath, VolumeMount::getReadOnly)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(DIR, true));
            assertThat(pod.getVolumes())
                .as(where)
                .filteredOn(v -> v.getName().equals(SimulatedHardware.VOLUME))
                .singleElement()
                .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo(DIR));
          }
        }
      }
    }
    return out;
  }

  static OperatorConfig config(boolean nodeAgents) {
    // The binary's subcommands: the operands' agents and pci-discovery, which is no operand's.
    Set<String> subcommands = new TreeSet<>(Policies.agents());
    subcommands.add("pci-discovery");
    return OperatorConfig.fromEnv(
            Map.of(
                "SIMULATED_HARDWARE_DIR", DIR,
                "CONTAINER_TOOLKIT_IMAGE", OURS))
        .withAgents(subcommands)
        .withNodeAgents(nodeAgents);
  }

  @Test
  void everyRenderedContainerRunningOurAgentHasTheSimulatedBackend() {
    // No NFD: the PCI discovery DaemonSet renders too.
    ClusterFacts noNfd =
        new ClusterFacts(
            io.gpuoperator.operator.cluster.KubernetesVersion.MINIMUM.gitVersion(),
            "containerd",
            false,
            2,
            false,
            "ubuntu22.04");
    assertThat(simulatedContainers(config(false), noNfd))
        .containsExactlyInAnyOrder(
            concat(
                TOOLKIT_AND_VALIDATOR,
                "nvidia-device-plugin-daemonset/nvidia-device-plugin",
                "nvidia-dcgm-exporter/nvidia-dcgm-exporter",
                "gpu-feature-discovery/gpu-feature-discovery",
                "nvidia-pci-discovery/pci-discovery",
                "nvidia-mig-manager/nvidia-mig-manager"));
    assertThat(simulatedContainers(config(true), Policies.facts()))
        .containsExactlyInAnyOrder(
            concat(TOOLKIT_AND_VALIDATOR, "nvidia-node-agents/nvidia-node-agents"));
  }

  @Test
  void withoutTheSettingNoRenderedContainerIsSimulated() {
    OperatorConfig nvml =
        OperatorConfig.fromEnv(Map.of("CONTAINER_TOOLKIT_IMAGE", OURS))
            .withAgents(Policies.agents());
    assertThat(nvml.simulatedHardwareDir()).isNull();
    for (var operand : Operands.renderAll(Policies.sample(), Policies.facts(), nvml)) {
      for (var object : operand.objects()) {
        if (object instanceof DaemonSet ds) {
          PodSpec pod = ds.getSpec().getTemplate().getSpec();
          assertThat(DaemonSets.allContainers(pod)).noneMatch(SimulatedHardwareTest::simulated);
          assertThat(DaemonSets.volume(pod, SimulatedHardware.VOLUME)).isNull();
        }
      }
    }
  }
}
