package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSetBuilder;
import io.gpuoperator.api.v1.DaemonsetsSpec;
import io.gpuoperator.config.Setting;
import io.gpuoperator.node.AgentContracts;
import io.gpuoperator.node.validator.ValidatorEnv;
import io.gpuoperator.operator.labels.Labels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The transforms every operand DaemonSet gets from the policy (the original's common config). */
public final class DaemonSets {
  /** Labels {@code daemonsets.labels} may not override: operands are selected by them. */
  private static final List<String> PROTECTED_LABELS = List.of(Labels.APP, Labels.PART_OF);

  /** Name prefix of the driver DaemonSets (one per kernel with precompiled drivers). */
  static final String DRIVER_PREFIX = "nvidia-driver-daemonset";

  private DaemonSets() {}

  /**
   * Update strategy, priority class, tolerations and pod security context. The driver DaemonSets
   * ({@value #DRIVER_PREFIX}*) keep their OnDelete strategy: the upgrade controller restarts their
   * pods node by node.
   */
  static void applyCommon(DaemonSet ds, DaemonsetsSpec d) {
    if (d == null) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    if (d.updateStrategy == DaemonsetsSpec.UpdateStrategy.ON_DELETE) {
      ds.getSpec().setUpdateStrategy(new DaemonSetUpdateStrategy(null, "OnDelete"));
    } else if (!ds.getMetadata().getName().startsWith(DRIVER_PREFIX)
        && d.rollingUpdate != null
        && d.rollingUpdate.maxUnavailable != null) {
      RollingUpdateDaemonSet rolling =
          new RollingUpdateDaemonSetBuilder()
              .withMaxUnavailable(normalize(d.rollingUpdate.maxUnavailable))
              .build();
      ds.getSpec().setUpdateStrategy(new DaemonSetUpdateStrategy(rolling, "RollingUpdate"));
    }
    if (d.priorityClassName != null && !d.priorityClassName.isBlank()) {
      pod.setPriorityClassName(d.priorityClassName.trim());
    }
    if (d.tolerations != null && !d.tolerations.isEmpty()) {
      pod.setTolerations(new ArrayList<>(d.tolerations));
    }
    if (d.podSecurityContext != null) {
      pod.setSecurityContext(d.podSecurityContext);
    }
  }

  /** {@code daemonsets.labels/annotations} on the DaemonSet and its pod template. */
  static void applyLabelsAndAnnotations(DaemonSet ds, DaemonsetsSpec d) {
    if (d == null) {
      return;
    }
    var meta = ds.getMetadata();
    var podMeta = ds.getSpec().getTemplate().getMetadata();
    if (d.labels != null) {
      d.labels.forEach(
          (k, v) -> {
            if (!PROTECTED_LABELS.contains(k) && v != null) {
              mutable(meta.getLabels(), meta::setLabels).put(k, v);
              mutable(podMeta.getLabels(), podMeta::setLabels).put(k, v);
            }
          });
    }
    if (d.annotations != null) {
      d.annotations.forEach(
          (k, v) -> {
            if (!ManagedObjects.HASH_ANNOTATION.equals(k) && v != null) {
              mutable(meta.getAnnotations(), meta::setAnnotations).put(k, v);
              mutable(podMeta.getAnnotations(), podMeta::setAnnotations).put(k, v);
            }
          });
    }
  }

  /** Adds a toleration for the GPU taint unless one already tolerates it. */
  static void tolerate(PodSpec pod, Taint taint) {
    List<Toleration> tolerations =
        pod.getTolerations() == null ? new ArrayList<>() : new ArrayList<>(pod.getTolerations());
    if (!tolerates(tolerations, taint)) {
      tolerations.add(
          new TolerationBuilder()
              .withKey(taint.getKey())
              .withOperator("Exists")
              .withEffect(taint.getEffect())
              .build());
    }
    pod.setTolerations(tolerations);
  }

  /** Kubernetes' toleration matching for one taint. */
  public static boolean tolerates(List<Toleration> tolerations, Taint taint) {
    if (tolerations == null) {
      return false;
    }
    for (Toleration t : tolerations) {
      boolean effect =
          t.getEffect() == null
              || t.getEffect().isEmpty()
              || t.getEffect().equals(taint.getEffect());
      boolean exists = "Exists".equals(t.getOperator());
      boolean key =
          (t.getKey() == null || t.getKey().isEmpty()) ? exists : t.getKey().equals(taint.getKey());
      boolean value =
          exists || Objects.equals(emptyToNull(t.getValue()), emptyToNull(taint.getValue()));
      if (effect && key && value) {
        return true;
      }
    }
    return false;
  }

  /**
   * The original's host-path steps: a custom {@code hostPaths.rootFS} becomes the {@code host-root}
   * volume's path and, where the pod has that volume, {@code HOST_ROOT} on every container; {@code
   * host-dev-char} follows it. A custom {@code hostPaths.driverInstallDir} becomes the {@code
   * driver-install-dir} volume's path and, in a {@code driver-validation} init container, its mount
   * path and {@code DRIVER_INSTALL_DIR(_CTR_PATH)}. Other volumes keep their paths. A container
   * that runs one of our agents gets only what it reads: the install directory as mounted ({@code
   * DRIVER_INSTALL_DIR_CTR_PATH}), not the host's paths.
   */
  static void rewriteHostPaths(PodSpec pod, String rootFs, String driverInstallDir) {
    if (pod.getVolumes() == null) {
      return;
    }
    boolean hostRoot = false;
    boolean installDir = false;
    for (Volume v : pod.getVolumes()) {
      HostPathVolumeSource h = v.getHostPath();
      if (h == null) {
        continue;
      }
      if (v.getName().equals("host-root")) {
        hostRoot = true;
        if (rootFs != null) {
          h.setPath(rootFs);
        }
      } else if (v.getName().equals("host-dev-char") && rootFs != null) {
        h.setPath(rootFs + "/dev/char");
      } else if (v.getName().equals("driver-install-dir")) {
        installDir = true;
        if (driverInstallDir != null) {
          h.setPath(driverInstallDir);
        }
      }
    }
    if (rootFs != null && hostRoot) {
      allContainers(pod).stream()
          .filter(c -> !runsOurAgent(c))
          .forEach(c -> setEnv(c, "HOST_ROOT", rootFs));
    }
    if (driverInstallDir != null && installDir && pod.getInitContainers() != null) {
      for (Container c : pod.getInitContainers()) {
        if (!c.getName().equals("driver-validation")) {
          continue;
        }
        if (!runsOurAgent(c)) {
          setEnv(c, "DRIVER_INSTALL_DIR", driverInstallDir);
        }
        setEnv(c, ValidatorEnv.DRIVER_INSTALL_DIR_CTR_PATH, driverInstallDir);
        if (c.getVolumeMounts() != null) {
          c.getVolumeMounts().stream()
              .filter(m -> m.getName().equals("driver-install-dir"))
              .forEach(m -> m.setMountPath(driverInstallDir));
        }
      }
    }
  }

  /** Init containers, then containers. */
  static List<Container> allContainers(PodSpec pod) {
    List<Container> out = new ArrayList<>();
    if (pod.getInitContainers() != null) {
      out.addAll(pod.getInitContainers());
    }
    out.addAll(pod.getContainers());
    return out;
  }

  /** Removes a container or init container by name. */
  static void remove(PodSpec pod, String name) {
    pod.getContainers().removeIf(c -> c.getName().equals(name));
    if (pod.getInitContainers() != null) {
      pod.getInitContainers().removeIf(c -> c.getName().equals(name));
    }
  }

  /** The named container, or null. */
  static Container find(PodSpec pod, String name) {
    return allContainers(pod).stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  /** The named volume, or null. */
  static Volume volume(PodSpec pod, String name) {
    return pod.getVolumes() == null
        ? null
        : pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElse(null);
  }

  /** Adds a section's pull secrets to the pod, without duplicates. */
  static void addPullSecrets(PodSpec pod, io.gpuoperator.api.common.ImageSpec section) {
    if (section == null || section.imagePullSecrets == null) {
      return;
    }
    List<io.fabric8.kubernetes.api.model.LocalObjectReference> refs =
        pod.getImagePullSecrets() == null
            ? new ArrayList<>()
            : new ArrayList<>(pod.getImagePullSecrets());
    for (String s : section.imagePullSecrets) {
      if (s != null && !s.isBlank() && refs.stream().noneMatch(r -> s.equals(r.getName()))) {
        refs.add(new io.fabric8.kubernetes.api.model.LocalObjectReference(s));
      }
    }
    pod.setImagePullSecrets(refs.isEmpty() ? null : refs);
  }

  /** The policy section's env merged into a container (replace in place, else append). */
  static void mergeEnv(Container c, io.gpuoperator.api.common.ComponentSpec section) {
    if (section != null && section.env != null) {
      section.env.forEach(e -> setEnv(c, e.name, e.value));
    }
  }

  /**
   * The original's MIG env on the device plugin, MPS daemon and feature discovery: no strategy
   * means only {@code NVIDIA_MIG_MONITOR_DEVICES=all}; {@code none} only {@code MIG_STRATEGY};
   * {@code single} and {@code mixed} both.
   */
  static void migEnv(Container c, String strategyOrNull) {
    if (strategyOrNull != null) {
      setEnv(c, "MIG_STRATEGY", strategyOrNull);
    }
    if (!"none".equals(strategyOrNull)) {
      setEnv(c, "NVIDIA_MIG_MONITOR_DEVICES", "all");
    }
  }

  /** Pod-template annotation for the CDI NRI plugin: the container gets every GPU. */
  static final String NRI_ANNOTATION_PREFIX = "nvidia.cdi.k8s.io/container.";

  static final String NRI_ALL_GPUS = "management.nvidia.com/gpu=all";

  /** Sets a pod-template annotation. */
  static void podAnnotation(DaemonSet ds, String key, String value) {
    var meta = ds.getSpec().getTemplate().getMetadata();
    mutable(meta.getAnnotations(), meta::setAnnotations).put(key, value);
  }

  /** Appends a volume mount to a container. */
  static void mount(Container c, io.fabric8.kubernetes.api.model.VolumeMount m) {
    List<io.fabric8.kubernetes.api.model.VolumeMount> mounts =
        c.getVolumeMounts() == null ? new ArrayList<>() : new ArrayList<>(c.getVolumeMounts());
    mounts.add(m);
    c.setVolumeMounts(mounts);
  }

  /** Appends a volume to the pod. */
  static void addVolume(PodSpec pod, Volume v) {
    List<Volume> volumes =
        pod.getVolumes() == null ? new ArrayList<>() : new ArrayList<>(pod.getVolumes());
    volumes.add(v);
    pod.setVolumes(volumes);
  }

  /** The named container (main or init). */
  static Container container(PodSpec pod, String name) {
    Container c = find(pod, name);
    if (c == null) {
      throw new IllegalStateException("manifest has no container " + name);
    }
    return c;
  }

  /** The value of a container's env variable, or null when it has none. */
  static String env(Container c, String name) {
    return c.getEnv() == null
        ? null
        : c.getEnv().stream()
            .filter(e -> e.getName().equals(name))
            .map(EnvVar::getValue)
            .findFirst()
            .orElse(null);
  }

  /**
   * Whether a container runs one of our agents: our image's entrypoint (no command) with an agent
   * subcommand first ({@link AgentContracts}).
   */
  static boolean runsOurAgent(Container c) {
    return (c.getCommand() == null || c.getCommand().isEmpty())
        && c.getArgs() != null
        && !c.getArgs().isEmpty()
        && AgentContracts.of(c.getArgs().get(0)).isPresent();
  }

  /**
   * Sets an agent's setting: its variable ({@link Setting#envName}) to the value as the setting
   * writes it, so that the agent's parser reads it back ({@code AgentEnvContractTest}).
   */
  static <T> void setEnv(Container c, Setting<T> setting, T value) {
    setEnv(c, setting.envName(), setting.text(value));
  }

  /** Sets an env variable, replacing a variable of the same name in place (merge by name). */
  static void setEnv(Container c, String name, String value) {
    List<EnvVar> env = c.getEnv() == null ? new ArrayList<>() : new ArrayList<>(c.getEnv());
    boolean replaced = false;
    for (int i = 0; i < env.size(); i++) {
      if (env.get(i).getName().equals(name)) {
        env.set(i, new EnvVar(name, value, null));
        replaced = true;
      }
    }
    if (!replaced) {
      env.add(new EnvVar(name, value, null));
    }
    c.setEnv(env);
  }

  private static Map<String, String> mutable(
      Map<String, String> m, java.util.function.Consumer<Map<String, String>> setter) {
    if (m == null) {
      Map<String, String> created = new LinkedHashMap<>();
      setter.accept(created);
      return created;
    }
    return m;
  }

  /**
   * "1" as the integer 1, as the original's intstr.Parse does: the API server only accepts
   * percentages as strings.
   */
  static IntOrString normalize(IntOrString v) {
    if (v.getStrVal() != null && v.getStrVal().trim().matches("\\d+")) {
      return new IntOrString(Integer.parseInt(v.getStrVal().trim()));
    }
    return v;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
