package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * The container toolkit DaemonSet {@code nvidia-container-toolkit-daemonset}: our image's {@code
 * toolkit} subcommand installs the runtime wrappers and configures the node's container runtime.
 */
public final class ContainerToolkitTransform implements Transform {
  static final String CONTAINER = "nvidia-container-toolkit-ctr";
  static final String DEFAULT_INSTALL_DIR = "/usr/local/nvidia";

  /** Where the toolkit is installed on the host ({@code toolkit.installDir}). */
  static String installDir(ClusterPolicySpec spec) {
    return spec.toolkit == null
            || spec.toolkit.installDir == null
            || spec.toolkit.installDir.isBlank()
        ? DEFAULT_INSTALL_DIR
        : spec.toolkit.installDir.trim();
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    String runtime =
        ctx.facts().containerRuntime() == null ? "containerd" : ctx.facts().containerRuntime();
    DaemonSets.setEnv(c, "RUNTIME", runtime);
    switch (runtime) {
      case "crio" -> {
        DaemonSets.setEnv(c, "RUNTIME_CONFIG", "/runtime/config-dir/crio.conf");
        DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.conf");
        DaemonSets.setEnv(
            c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", "/etc/crio/crio.conf.d/99-nvidia.conf");
        DaemonSets.setEnv(c, "RUNTIME_SOCKET", "/runtime/sock-dir/crio.sock");
        hostPath(pod.getVolumes(), "runtime-config", "/etc/crio");
        hostPath(pod.getVolumes(), "runtime-config-dropin", "/etc/crio/crio.conf.d");
        hostPath(pod.getVolumes(), "runtime-socket", "/var/run/crio");
      }
      case "docker" -> {
        DaemonSets.setEnv(c, "RUNTIME_CONFIG", "/runtime/config-dir/daemon.json");
        DaemonSets.setEnv(c, "RUNTIME_SOCKET", "/runtime/sock-dir/docker.sock");
        hostPath(pod.getVolumes(), "runtime-config", "/etc/docker");
        hostPath(pod.getVolumes(), "runtime-socket", "/var/run");
      }
      default -> {
        DaemonSets.setEnv(c, "RUNTIME_CONFIG", "/runtime/config-dir/config.toml");
        DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/99-nvidia.toml");
        DaemonSets.setEnv(
            c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", "/etc/containerd/conf.d/99-nvidia.toml");
        DaemonSets.setEnv(c, "RUNTIME_SOCKET", "/runtime/sock-dir/containerd.sock");
      }
    }
    String installDir = installDir(ctx.spec());
    DaemonSets.setEnv(c, "TOOLKIT_INSTALL_DIR", installDir);
    hostPath(pod.getVolumes(), "toolkit-install-dir", installDir);
    if (ctx.cdiEnabled()) {
      DaemonSets.setEnv(c, "CDI_ENABLED", "true");
      DaemonSets.setEnv(c, "NVIDIA_RUNTIME_SET_AS_DEFAULT", "false");
      DaemonSets.setEnv(c, "NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");
    } else {
      DaemonSets.setEnv(c, "CDI_ENABLED", "false");
    }
    if (ctx.spec().cdi != null && Boolean.TRUE.equals(ctx.spec().cdi.nriPluginEnabled)) {
      DaemonSets.setEnv(c, "ENABLE_NRI_PLUGIN", "true");
    }
  }

  private static void hostPath(java.util.List<Volume> volumes, String name, String path) {
    volumes.stream()
        .filter(v -> v.getName().equals(name) && v.getHostPath() != null)
        .forEach(v -> v.getHostPath().setPath(path));
  }
}
