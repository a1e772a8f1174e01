package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.operand.ContainerToolkitTransform.RuntimeHostFiles;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The container runtime's files on the host, found as the original operator finds them
 * (getRuntimeConfigFiles, getRuntimeSocketFile: the runtime's own variable, then RUNTIME_CONFIG,
 * then its default), and the validator's toolkit step reading the same files read-only.
 */
class ContainerToolkitRuntimeFilesTest {
  static List<EnvVar> env(String... nameValue) {
    List<EnvVar> out = new java.util.ArrayList<>();
    for (int i = 0; i < nameValue.length; i += 2) {
      out.add(new EnvVar(nameValue[i], nameValue[i + 1], null));
    }
    return out;
  }

  @Test
  void eachRuntimesDefaultsAreTheOriginals() {
    assertThat(RuntimeHostFiles.of("containerd", List.of()))
        .isEqualTo(
            new RuntimeHostFiles(
                "/etc/containerd/config.toml",
                "CONTAINERD_CONFIG",
                "/etc/containerd/conf.d/99-nvidia.toml",
                "/run/containerd/containerd.sock",
                "CONTAINERD_SOCKET"));
    RuntimeHostFiles crio = RuntimeHostFiles.of("crio", List.of());
    assertThat(crio.config()).isEqualTo("/etc/crio/config.toml");
    assertThat(crio.configEnv()).isEqualTo("CRIO_CONFIG");
    assertThat(crio.dropIn()).isEqualTo("/etc/crio/crio.conf.d/99-nvidia.conf");
    assertThat(crio.socket()).as("CRI-O is restarted through systemd").isNull();
    RuntimeHostFiles docker = RuntimeHostFiles.of("docker", List.of());
    assertThat(docker.config()).isEqualTo("/etc/docker/daemon.json");
    assertThat(docker.configEnv()).isEqualTo("DOCKER_CONFIG");
    assertThat(docker.dropIn()).as("docker has no drop-ins").isNull();
    assertThat(docker.socket()).isEqualTo("/var/run/docker.sock");
    assertThat(docker.socketEnv()).isEqualTo("DOCKER_SOCKET");
  }

  @Test
  void thePolicysToolkitEnvNamesOtherHostFiles() {
    RuntimeHostFiles k3s =
        RuntimeHostFiles.of(
            "containerd",
            env(
                "CONTAINERD_CONFIG", "/etc/k3s/containerd/config.toml",
                "RUNTIME_DROP_IN_CONFIG", "/etc/k3s/containerd/conf.d/99-nvidia.toml",
                "CONTAINERD_SOCKET", "/run/k3s/containerd/containerd.sock"));
    assertThat(k3s.config()).isEqualTo("/etc/k3s/containerd/config.toml");
    assertThat(k3s.dropIn()).isEqualTo("/etc/k3s/containerd/conf.d/99-nvidia.toml");
    assertThat(k3s.socket()).isEqualTo("/run/k3s/containerd/containerd.sock");
    assertThat(RuntimeHostFiles.of("crio", env("CRIO_CONFIG", "/etc/crio/crio.conf")).config())
        .isEqualTo("/etc/crio/crio.conf");
    assertThat(
            RuntimeHostFiles.of("docker", env("DOCKER_SOCKET", "/run/docker/docker.sock")).socket())
        .isEqualTo("/run/docker/docker.sock");
  }

  @Test
  void theRuntimesOwnVariableWinsOverRuntimeConfigWhichWinsOverTheDefault() {
    assertThat(
            RuntimeHostFiles.of("containerd", env("RUNTIME_CONFIG", "/etc/rc/config.toml"))
                .config())
        .isEqualTo("/etc/rc/config.toml");
    assertThat(
            RuntimeHostFiles.of(
                    "containerd",
                    env(
                        "RUNTIME_CONFIG", "/etc/rc/config.toml",
                        "CONTAINERD_CONFIG", "/etc/own/config.toml"))
                .config())
        .isEqualTo("/etc/own/config.toml");
    assertThat(
            RuntimeHostFiles.of("crio", env("CONTAINERD_CONFIG", "/etc/own/config.toml")).config())
        .as("another runtime's variable")
        .isEqualTo("/etc/crio/config.toml");
  }

  @Test
  void containerPathsAndRelativePathsAreNoHostFiles() {
    // The transform's own rewrite (/runtime/...) must not be taken for a host path.
    assertThat(
            RuntimeHostFiles.of(
                "containerd",
                env(
                    "CONTAINERD_CONFIG", "/runtime/config-dir/config.toml",
                    "RUNTIME_DROP_IN_CONFIG", "conf.d/99-nvidia.toml")))
        .isEqualTo(RuntimeHostFiles.of("containerd", List.of()));
  }

  /** The validator's toolkit step and the pod of the validator rendered for this policy. */
  record Step(Container container, PodSpec pod, Map<String, String> env) {
    /** The host path of the volume mounted read-only at {@code mountPath}, or null. */
    String readOnlyHostPath(String mountPath) {
      VolumeMount m =
          container.getVolumeMounts().stream()
              .filter(v -> v.getMountPath().equals(mountPath))
              .findFirst()
              .orElse(null);
      if (m == null || !Boolean.TRUE.equals(m.getReadOnly())) {
        return null;
      }
      return DaemonSets.volume(pod, m.getName()).getHostPath().getPath();
    }
  }

  static DaemonSet daemonSet(String name, String toolkitEnv, String runtime) {
    var policy =
        Policies.withSpec(
            "  toolkit:\n    env:\n" + (toolkitEnv.isEmpty() ? "      []\n" : toolkitEnv));
    ClusterFacts facts =
        new ClusterFacts(
            KubernetesVersion.MINIMUM.gitVersion(), runtime, false, 2, true, "ubuntu22.04");
    return Operands.renderAll(policy, facts, Policies.configWithToolkitAgent()).stream()
        .flatMap(o -> o.objects().stream())
        .filter(DaemonSet.class::isInstance)
        .map(DaemonSet.class::cast)
        .filter(d -> d.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  static Step toolkitStep(String toolkitEnv, String runtime) {
    PodSpec pod =
        daemonSet("nvidia-operator-validator", toolkitEnv, runtime)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container c = DaemonSets.container(pod, "toolkit-validation");
    Map<String, String> env = new HashMap<>();
    c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    return new Step(c, pod, env);
  }

  /**
   * The host folders behind the step's read-only mounts of the runtime's config ({@code
   * /runtime/config-dir/}) and drop-in ({@code /runtime/config-dir.d/}, null where none is
   * mounted).
   */
  static void expectHostFolders(Step step, String config, String dropIn) {
    assertThat(step.readOnlyHostPath("/runtime/config-dir/")).as("config").isEqualTo(config);
    assertThat(step.readOnlyHostPath("/runtime/config-dir.d/")).as("drop-in").isEqualTo(dropIn);
  }

  /** The step reads the CDI specs where the toolkit writes them: {@code dir}, mounted read-only. */
  static void expectCdiSpecs(Step step, String dir) {
    assertThat(step.env()).containsEntry("CDI_SPEC_DIR", dir);
    assertThat(step.readOnlyHostPath(dir)).isEqualTo(dir);
  }

  @Test
  void theValidatorsToolkitStepReadsContainerdsDefaultFilesReadOnly() {
    Step s = toolkitStep("", "containerd");
    assertThat(s.env())
        .containsEntry("RUNTIME_CONFIG", "/runtime/config-dir/config.toml")
        .containsEntry("RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.toml");
    expectHostFolders(s, "/etc/containerd", "/etc/containerd/conf.d");
    expectCdiSpecs(s, "/var/run/cdi");
  }

  @Test
  void theValidatorsToolkitStepReadsTheFilesThePolicyNames() {
    Step s =
        toolkitStep(
            "      - {name: CONTAINERD_CONFIG, value: /etc/k3s/containerd/config.toml}\n"
                + "      - {name: RUNTIME_DROP_IN_CONFIG, value: /etc/k3s/conf.d/50-gpu.toml}\n"
                + "      - {name: CDI_OUTPUT_DIR, value: /etc/cdi}\n",
            "containerd");
    assertThat(s.env())
        .containsEntry("RUNTIME_CONFIG", "/runtime/config-dir/config.toml")
        .containsEntry("RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/50-gpu.toml");
    expectHostFolders(s, "/etc/k3s/containerd", "/etc/k3s/conf.d");
    expectCdiSpecs(s, "/etc/cdi");
  }

  @Test
  void theValidatorsToolkitStepReadsCrioAndDockerFiles() {
    Step crio = toolkitStep("", "crio");
    assertThat(crio.env())
        .containsEntry("RUNTIME", "crio")
        .containsEntry("RUNTIME_CONFIG", "/runtime/config-dir/config.toml")
        .containsEntry("RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.conf");
    expectHostFolders(crio, "/etc/crio", "/etc/crio/crio.conf.d");

    Step docker = toolkitStep("", "docker");
    assertThat(docker.env())
        .containsEntry("RUNTIME_CONFIG", "/runtime/config-dir/daemon.json")
        .doesNotContainKey("RUNTIME_DROP_IN_CONFIG");
    expectHostFolders(docker, "/etc/docker", null);
  }

  @Test
  void theValidatorReadsTheHostFoldersTheToolkitWrites() {
    String k3s = "      - {name: CONTAINERD_CONFIG, value: /etc/k3s/containerd/config.toml}\n";
    for (String runtime : List.of("containerd", "crio", "docker")) {
      String env = runtime.equals("containerd") ? k3s : "";
      PodSpec toolkit =
          daemonSet("nvidia-container-toolkit-daemonset", env, runtime)
              .getSpec()
              .getTemplate()
              .getSpec();
      Step validator = toolkitStep(env, runtime);
      assertThat(DaemonSets.volume(validator.pod(), runtime + "-config")).isNotNull();
      for (String volume : List.of(runtime + "-config", runtime + "-drop-in-config")) {
        var written = DaemonSets.volume(toolkit, volume);
        var read = DaemonSets.volume(validator.pod(), volume);
        assertThat(read == null ? null : read.getHostPath().getPath())
            .as(runtime + " " + volume)
            .isEqualTo(written == null ? null : written.getHostPath().getPath());
      }
    }
  }
}
