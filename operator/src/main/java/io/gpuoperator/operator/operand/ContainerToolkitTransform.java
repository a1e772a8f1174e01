package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import java.util.ArrayList;
import java.util.List;

/**
 * NVIDIA's container toolkit ({@code nvidia-container-toolkit-daemonset}) under the original's
 * contract: the entrypoint ConfigMap waits for the validated driver and runs {@code
 * nvidia-toolkit}, which configures the node's container runtime. The runtime's config file,
 * drop-in and socket directories are mounted under {@code /runtime/}; a host path the policy's env
 * names instead ({@code CONTAINERD_CONFIG=/etc/k3s/...}) is mounted and rewritten to the container
 * path.
 */
public final class ContainerToolkitTransform implements Transform {
  static final String CONTAINER = "nvidia-container-toolkit-ctr";
  static final String DEFAULT_INSTALL_DIR = "/usr/local/nvidia";

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    String installDir = installDir(ctx.spec());
    if (!installDir.equals(DEFAULT_INSTALL_DIR)) {
      DaemonSets.setEnv(c, "ROOT", installDir);
      DaemonSets.volume(pod, "toolkit-install-dir").getHostPath().setPath(installDir);
      c.getVolumeMounts().stream()
          .filter(m -> m.getName().equals("toolkit-install-dir"))
          .forEach(m -> m.setMountPath(installDir));
    }
    String runtime = ctx.runtime();
    boolean nri = ctx.nriPlugin();
    if (ctx.cdiEnabled()) {
      DaemonSets.setEnv(c, "CDI_ENABLED", "true");
      DaemonSets.setEnv(c, "NVIDIA_RUNTIME_SET_AS_DEFAULT", "false");
      DaemonSets.setEnv(c, "NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");
      DaemonSets.setEnv(c, "CRIO_CONFIG_MODE", "config");
      if (nri) {
        DaemonSets.setEnv(c, "ENABLE_NRI_PLUGIN", "true");
      }
    } else if ("crio".equals(runtime)) {
      // Without CDI, CRI-O gets the OCI prestart hook instead of runtime handlers.
      DaemonSets.setEnv(c, "CRIO_CONFIG_MODE", "hook");
    }
    if ("crio".equals(runtime)) {
      DaemonSets.volume(pod, "crio-hooks")
          .getHostPath()
          .setPath("/usr/share/containers/oci/hooks.d");
    }
    // The policy's env comes before the runtime settings: it may name the runtime's host files.
    DaemonSets.mergeEnv(c, ctx.spec().toolkit);
    DaemonSets.setEnv(c, "RUNTIME", runtime);
    if (nri) {
      String socket = hostPath(c, List.of("NRI_SOCKET"), "/var/run/nri/nri.sock");
      DaemonSets.setEnv(c, "NRI_SOCKET", "/runtime/nri-sock-dir/" + basename(socket));
      hostDir(pod, c, "nri-socket", parent(socket), "/runtime/nri-sock-dir/", "DirectoryOrCreate");
      return;
    }
    if ("containerd".equals(runtime)) {
      DaemonSets.setEnv(c, "CONTAINERD_RUNTIME_CLASS", ctx.runtimeClass());
    }
    String configEnv =
        switch (runtime) {
          case "crio" -> "CRIO_CONFIG";
          case "docker" -> "DOCKER_CONFIG";
          default -> "CONTAINERD_CONFIG";
        };
    String config =
        hostPath(
            c,
            List.of(configEnv, "RUNTIME_CONFIG"),
            switch (runtime) {
              case "crio" -> "/etc/crio/config.toml";
              case "docker" -> "/etc/docker/daemon.json";
              default -> "/etc/containerd/config.toml";
            });
    String inCtr = "/runtime/config-dir/" + basename(config);
    DaemonSets.setEnv(c, "RUNTIME_CONFIG", inCtr);
    DaemonSets.setEnv(c, configEnv, inCtr);
    String dropIn = null;
    if (!"docker".equals(runtime)) {
      dropIn =
          hostPath(
              c,
              List.of("RUNTIME_DROP_IN_CONFIG"),
              "crio".equals(runtime)
                  ? "/etc/crio/crio.conf.d/99-nvidia.conf"
                  : "/etc/containerd/conf.d/99-nvidia.toml");
      DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG", "/runtime/config-dir.d/" + basename(dropIn));
      DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", dropIn);
    }
    rewriteConfigSource(c);
    String socket = null;
    if (!"crio".equals(runtime)) {
      String socketEnv = "docker".equals(runtime) ? "DOCKER_SOCKET" : "CONTAINERD_SOCKET";
      socket =
          hostPath(
              c,
              List.of(socketEnv),
              "docker".equals(runtime)
                  ? "/var/run/docker.sock"
                  : "/run/containerd/containerd.sock");
      String sockInCtr = "/runtime/sock-dir/" + basename(socket);
      DaemonSets.setEnv(c, "RUNTIME_SOCKET", sockInCtr);
      DaemonSets.setEnv(c, socketEnv, sockInCtr);
    }
    hostDir(
        pod, c, runtime + "-config", parent(config), "/runtime/config-dir/", "DirectoryOrCreate");
    if (dropIn != null) {
      hostDir(
          pod,
          c,
          runtime + "-drop-in-config",
          parent(dropIn),
          "/runtime/config-dir.d/",
          "DirectoryOrCreate");
    }
    if (socket != null) {
      hostDir(pod, c, runtime + "-socket", parent(socket), "/runtime/sock-dir/", null);
    }
  }

  /** Where the toolkit is installed on the host ({@code toolkit.installDir}). */
  static String installDir(ClusterPolicySpec spec) {
    return spec.toolkit == null || RenderContext.blank(spec.toolkit.installDir)
        ? DEFAULT_INSTALL_DIR
        : spec.toolkit.installDir.trim();
  }

  /** The CDI hook the toolkit installs, which the device plugin and MIG manager reference. */
  static String cdiHookPath(RenderContext ctx) {
    return installDir(ctx.spec()) + "/toolkit/nvidia-cdi-hook";
  }

  /** The host path the first of these env variables names (a policy override), or the default. */
  private static String hostPath(Container c, List<String> names, String fallback) {
    for (String name : names) {
      for (EnvVar e : env(c)) {
        if (e.getName().equals(name) && e.getValue() != null && e.getValue().startsWith("/")) {
          if (!e.getValue().startsWith("/runtime/")) {
            return e.getValue();
          }
        }
      }
    }
    return fallback;
  }

  /** {@code RUNTIME_CONFIG_SOURCE} entries {@code file=<path>} read the host's file. */
  private static void rewriteConfigSource(Container c) {
    for (EnvVar e : env(c)) {
      if (e.getName().equals("RUNTIME_CONFIG_SOURCE") && e.getValue() != null) {
        List<String> out = new ArrayList<>();
        for (String part : e.getValue().split(",")) {
          out.add(part.startsWith("file=") ? "file=/host" + part.substring(5) : part);
        }
        DaemonSets.setEnv(c, e.getName(), String.join(",", out));
      }
    }
  }

  private static List<EnvVar> env(Container c) {
    return c.getEnv() == null ? List.of() : new ArrayList<>(c.getEnv());
  }

  private static void hostDir(
      PodSpec pod, Container c, String name, String hostDir, String mountPath, String type) {
    DaemonSets.mount(c, new VolumeMountBuilder().withName(name).withMountPath(mountPath).build());
    DaemonSets.addVolume(
        pod,
        new VolumeBuilder()
            .withName(name)
            .withNewHostPath()
            .withPath(hostDir)
            .withType(type)
            .endHostPath()
            .build());
  }

  private static String basename(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static String parent(String path) {
    int i = path.lastIndexOf('/');
    return i <= 0 ? "/" : path.substring(0, i);
  }
}
