package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * The container toolkit DaemonSet {@code nvidia-container-toolkit-daemonset}: our image's {@code
 * toolkit} agent configures the container runtime detected on the GPU nodes ({@code
 * containerRuntimeVersion}: containerd or CRI-O) and writes the CDI spec; it mounts the runtime's
 * config directory, drop-in directory and (containerd) socket, the host's root read-only for {@code
 * containerd config dump} / {@code systemctl restart crio}, and reverts everything when its pod
 * stops (the DaemonSet is deleted or the node unlabelled).
 */
public final class ContainerToolkitModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-container-toolkit-ctr";
  static final String DEFAULT_INSTALL_DIR = "/usr/local/nvidia";

  public ContainerToolkitModel() {
    super(OperandNames.CONTAINER_TOOLKIT);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.toolkit;
  }

  @Override
  protected String path() {
    return "spec.toolkit";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  /** Where the toolkit is installed on the host ({@code toolkit.installDir}). */
  static String installDir(ClusterPolicySpec spec) {
    return spec.toolkit == null
            || spec.toolkit.installDir == null
            || spec.toolkit.installDir.isBlank()
        ? DEFAULT_INSTALL_DIR
        : spec.toolkit.installDir.trim();
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    String runtime =
        ctx.facts().containerRuntime() == null ? "containerd" : ctx.facts().containerRuntime();
    env(c, "RUNTIME", runtime);
    switch (runtime) {
      case "crio" -> {
        env(c, "RUNTIME_CONFIG", "/runtime/config-dir/crio.conf");
        env(c, "RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.conf");
        env(c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", "/etc/crio/crio.conf.d/99-nvidia.conf");
        hostPath(pod.getVolumes(), "runtime-config", "/etc/crio");
        hostPath(pod.getVolumes(), "runtime-config-dropin", "/etc/crio/crio.conf.d");
        // CRI-O is restarted through systemd in the host's root, not by its socket.
        unmount(pod, c, "runtime-socket");
      }
      case "docker" -> {
        env(c, "RUNTIME_CONFIG", "/runtime/config-dir/daemon.json");
        env(c, "RUNTIME_SOCKET", "/runtime/sock-dir/docker.sock");
        hostPath(pod.getVolumes(), "runtime-config", "/etc/docker");
        hostPath(pod.getVolumes(), "runtime-socket", "/var/run");
        // docker has no drop-in directory.
        unmount(pod, c, "runtime-config-dropin");
      }
      default -> {
        env(c, "RUNTIME_CONFIG", "/runtime/config-dir/config.toml");
        env(c, "RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.toml");
        env(c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", "/etc/containerd/conf.d/99-nvidia.toml");
        env(c, "RUNTIME_SOCKET", "/runtime/sock-dir/containerd.sock");
      }
    }
    String installDir = installDir(ctx.spec());
    env(c, "TOOLKIT_INSTALL_DIR", installDir);
    hostPath(pod.getVolumes(), "toolkit-install-dir", installDir);
    if (ctx.cdiEnabled()) {
      env(c, "CDI_ENABLED", "true");
      env(c, "NVIDIA_RUNTIME_SET_AS_DEFAULT", "false");
      env(c, "NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");
    } else {
      env(c, "CDI_ENABLED", "false");
    }
    if (ctx.spec().cdi != null && Boolean.TRUE.equals(ctx.spec().cdi.nriPluginEnabled)) {
      env(c, "ENABLE_NRI_PLUGIN", "true");
    }
  }

  /** Takes a volume the runtime does not need out of the pod: the toolkit mounts only its own. */
  private static void unmount(
      io.fabric8.kubernetes.api.model.PodSpec pod, Container c, String name) {
    pod.getVolumes().removeIf(v -> v.getName().equals(name));
    c.getVolumeMounts().removeIf(m -> m.getName().equals(name));
  }

  private static void hostPath(java.util.List<Volume> volumes, String name, String path) {
    volumes.stream()
        .filter(v -> v.getName().equals(name) && v.getHostPath() != null)
        .forEach(v -> v.getHostPath().setPath(path));
  }
}
