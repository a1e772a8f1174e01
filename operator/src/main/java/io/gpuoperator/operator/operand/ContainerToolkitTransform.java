package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
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
public final class ContainerToolkitTransform implements MainContainerTransform {
  static final String CONTAINER = "nvidia-container-toolkit-ctr";
  static final String DEFAULT_INSTALL_DIR = "/usr/local/nvidia";

  @Override
  public SectionEnv sectionEnv() {
    return SectionEnv.BY_TRANSFORM;
  }

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    installDir(pod, c, ctx);
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
    runtimeFiles(pod, c, ctx);
  }

  /** {@code toolkit.installDir}: the host folder mounted at the same path, as {@code ROOT}. */
  static void installDir(PodSpec pod, Container c, RenderContext ctx) {
    String installDir = installDir(ctx.spec());
    if (!installDir.equals(DEFAULT_INSTALL_DIR)) {
      DaemonSets.setEnv(c, "ROOT", installDir);
      DaemonSets.volume(pod, "toolkit-install-dir").getHostPath().setPath(installDir);
      c.getVolumeMounts().stream()
          .filter(m -> m.getName().equals("toolkit-install-dir"))
          .forEach(m -> m.setMountPath(installDir));
    }
  }

  /**
   * The node's runtime ({@code RUNTIME}, detected from the nodes' {@code containerRuntimeVersion})
   * and only the host folders it needs, under {@code /runtime/}: its config file's, its drop-in's
   * (not docker's) and its socket's (not CRI-O's, restarted through systemd), or the NRI socket's.
   * Host paths the policy's env names are mounted instead of the defaults and rewritten to the
   * container paths.
   */
  static void runtimeFiles(PodSpec pod, Container c, RenderContext ctx) {
    String runtime = ctx.runtime();
    boolean nri = ctx.nriPlugin();
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
    RuntimeHostFiles files = RuntimeHostFiles.of(runtime, env(c));
    String inCtr = CONFIG_DIR + basename(files.config());
    DaemonSets.setEnv(c, "RUNTIME_CONFIG", inCtr);
    DaemonSets.setEnv(c, files.configEnv(), inCtr);
    if (files.dropIn() != null) {
      DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG", DROP_IN_DIR + basename(files.dropIn()));
      DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG_HOST_PATH", files.dropIn());
    }
    rewriteConfigSource(c);
    if (files.socket() != null) {
      String sockInCtr = "/runtime/sock-dir/" + basename(files.socket());
      DaemonSets.setEnv(c, "RUNTIME_SOCKET", sockInCtr);
      DaemonSets.setEnv(c, files.socketEnv(), sockInCtr);
    }
    hostDir(pod, c, runtime + "-config", parent(files.config()), CONFIG_DIR, "DirectoryOrCreate");
    if (files.dropIn() != null) {
      hostDir(
          pod,
          c,
          runtime + "-drop-in-config",
          parent(files.dropIn()),
          DROP_IN_DIR,
          "DirectoryOrCreate");
    }
    if (files.socket() != null) {
      hostDir(pod, c, runtime + "-socket", parent(files.socket()), "/runtime/sock-dir/", null);
    }
  }

  /**
   * Lets {@code c} (the validator's toolkit step) read what the toolkit writes, read-only: the
   * runtime's config file and drop-in (found as the toolkit finds them, from the policy's toolkit
   * env or the runtime's defaults) and the CDI spec directory, with the validator's variables
   * naming them in the container.
   */
  static void runtimeFilesForReading(PodSpec pod, Container c, RenderContext ctx) {
    String runtime = ctx.runtime();
    Container toolkit = new Container();
    DaemonSets.mergeEnv(toolkit, ctx.spec().toolkit);
    RuntimeHostFiles files = RuntimeHostFiles.of(runtime, env(toolkit));
    DaemonSets.setEnv(c, "RUNTIME_CONFIG", CONFIG_DIR + basename(files.config()));
    readOnlyHostDir(pod, c, runtime + "-config", parent(files.config()), CONFIG_DIR);
    if (files.dropIn() != null) {
      DaemonSets.setEnv(c, "RUNTIME_DROP_IN_CONFIG", DROP_IN_DIR + basename(files.dropIn()));
      readOnlyHostDir(pod, c, runtime + "-drop-in-config", parent(files.dropIn()), DROP_IN_DIR);
    }
    String cdi = hostPath(toolkit, List.of("CDI_OUTPUT_DIR"), DEFAULT_CDI_DIR);
    DaemonSets.setEnv(c, "CDI_SPEC_DIR", cdi);
    readOnlyHostDir(pod, c, "cdi-root", cdi, cdi);
  }

  /** Where the runtime's config file and drop-in folder are mounted in a container. */
  static final String CONFIG_DIR = "/runtime/config-dir/";

  static final String DROP_IN_DIR = "/runtime/config-dir.d/";

  /** The toolkit's default CDI output directory ({@code CDI_OUTPUT_DIR}). */
  static final String DEFAULT_CDI_DIR = "/var/run/cdi";

  /**
   * A container runtime's files on the host, as the toolkit finds them: named by the policy's
   * toolkit env ({@code CONTAINERD_CONFIG=/etc/k3s/...}, {@code RUNTIME_DROP_IN_CONFIG} ...) or the
   * runtime's defaults.
   *
   * @param configEnv the runtime's own variable for its config ({@code CONTAINERD_CONFIG} ...)
   * @param dropIn the drop-in file, null for docker (no drop-ins)
   * @param socket the runtime's socket, null for CRI-O (restarted through systemd)
   */
  record RuntimeHostFiles(
      String config, String configEnv, String dropIn, String socket, String socketEnv) {
    static RuntimeHostFiles of(String runtime, List<EnvVar> env) {
      Container c = new Container();
      c.setEnv(env);
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
      String dropIn =
          "docker".equals(runtime)
              ? null
              : hostPath(
                  c,
                  List.of("RUNTIME_DROP_IN_CONFIG"),
                  "crio".equals(runtime)
                      ? "/etc/crio/crio.conf.d/99-nvidia.conf"
                      : "/etc/containerd/conf.d/99-nvidia.toml");
      String socketEnv = "docker".equals(runtime) ? "DOCKER_SOCKET" : "CONTAINERD_SOCKET";
      String socket =
          "crio".equals(runtime)
              ? null
              : hostPath(
                  c,
                  List.of(socketEnv),
                  "docker".equals(runtime)
                      ? "/var/run/docker.sock"
                      : "/run/containerd/containerd.sock");
      return new RuntimeHostFiles(config, configEnv, dropIn, socket, socketEnv);
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
    hostDir(pod, c, name, hostDir, mountPath, type, false);
  }

  private static void hostDir(
      PodSpec pod,
      Container c,
      String name,
      String hostDir,
      String mountPath,
      String type,
      boolean readOnly) {
    DaemonSets.mount(
        c,
        new VolumeMountBuilder()
            .withName(name)
            .withMountPath(mountPath)
            .withReadOnly(readOnly ? true : null)
            .build());
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

  private static void readOnlyHostDir(
      PodSpec pod, Container c, String name, String hostDir, String mountPath) {
    hostDir(pod, c, name, hostDir, mountPath, "DirectoryOrCreate", true);
  }

  private static String basename(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static String parent(String path) {
    int i = path.lastIndexOf('/');
    return i <= 0 ? "/" : path.substring(0, i);
  }
}
