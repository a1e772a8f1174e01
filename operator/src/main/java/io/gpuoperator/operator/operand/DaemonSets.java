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
import io.gpuoperator.api.v1.HostPathsSpec;
import io.gpuoperator.operator.labels.Labels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/** The transforms every operand DaemonSet gets from the policy (the original's common config). */
public final class DaemonSets {
  /** Labels {@code daemonsets.labels} may not override: operands are selected by them. */
  private static final List<String> PROTECTED_LABELS = List.of(Labels.APP, Labels.PART_OF);

  private DaemonSets() {}

  /** Update strategy, priority class, tolerations and pod security context. */
  static void applyCommon(DaemonSet ds, DaemonsetsSpec d, boolean fixedUpdateStrategy) {
    if (d == null) {
      return;
    }
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    if (!fixedUpdateStrategy) {
      if (d.updateStrategy == DaemonsetsSpec.UpdateStrategy.ON_DELETE) {
        ds.getSpec().setUpdateStrategy(new DaemonSetUpdateStrategy(null, "OnDelete"));
      } else if (d.updateStrategy == DaemonsetsSpec.UpdateStrategy.ROLLING_UPDATE
          || d.rollingUpdate != null) {
        RollingUpdateDaemonSet rolling = null;
        if (d.rollingUpdate != null && d.rollingUpdate.maxUnavailable != null) {
          rolling =
              new RollingUpdateDaemonSetBuilder()
                  .withMaxUnavailable(normalize(d.rollingUpdate.maxUnavailable))
                  .build();
        }
        ds.getSpec().setUpdateStrategy(new DaemonSetUpdateStrategy(rolling, "RollingUpdate"));
      }
    }
    if (d.priorityClassName != null && !d.priorityClassName.isBlank()) {
      pod.setPriorityClassName(d.priorityClassName.trim());
    }
    if (d.tolerations != null) {
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
   * Rewrites host paths for {@code spec.hostPaths}: the host root ({@code host-root} volume), the
   * driver install dir ({@code driver-install-dir}, {@code run-nvidia} children) and paths under
   * the kubelet root dir.
   */
  static void rewriteHostPaths(PodSpec pod, HostPathsSpec hp) {
    if (hp == null || pod.getVolumes() == null) {
      return;
    }
    for (Volume v : pod.getVolumes()) {
      HostPathVolumeSource h = v.getHostPath();
      if (h == null || h.getPath() == null) {
        continue;
      }
      String path = h.getPath();
      if (set(hp.rootFS) && v.getName().equals("host-root")) {
        h.setPath(hp.rootFS.trim());
      } else if (set(hp.driverInstallDir)
          && path.startsWith(HostPathsSpec.DEFAULT_DRIVER_INSTALL_DIR)) {
        h.setPath(
            hp.driverInstallDir.trim()
                + path.substring(HostPathsSpec.DEFAULT_DRIVER_INSTALL_DIR.length()));
      } else if (set(hp.kubeletRootDir)
          && path.startsWith(HostPathsSpec.DEFAULT_KUBELET_ROOT_DIR)) {
        h.setPath(
            hp.kubeletRootDir.trim()
                + path.substring(HostPathsSpec.DEFAULT_KUBELET_ROOT_DIR.length()));
      }
    }
  }

  /** The named container (main or init). */
  static Container container(PodSpec pod, String name) {
    return Stream.concat(
            pod.getContainers().stream(),
            pod.getInitContainers() == null ? Stream.empty() : pod.getInitContainers().stream())
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("manifest has no container " + name));
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

  private static boolean set(String s) {
    return s != null && !s.isBlank();
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
