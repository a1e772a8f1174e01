package io.gpuoperator.operator.upgrade;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.operator.labels.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Which pods the upgrade waits for, evicts or leaves alone. Pure. */
public final class UpgradePods {
  /** Extended resources that mean "this pod uses the driver" (whole GPUs, shared GPUs, MIG). */
  static final List<String> GPU_RESOURCE_PREFIXES = List.of("nvidia.com/gpu", "nvidia.com/mig-");

  private UpgradePods() {}

  /** A pod that requests or limits an NVIDIA GPU or MIG resource in any of its containers. */
  public static boolean usesGpu(Pod pod) {
    if (pod.getSpec() == null) {
      return false;
    }
    List<Container> all = new ArrayList<>();
    if (pod.getSpec().getContainers() != null) {
      all.addAll(pod.getSpec().getContainers());
    }
    if (pod.getSpec().getInitContainers() != null) {
      all.addAll(pod.getSpec().getInitContainers());
    }
    for (Container c : all) {
      if (c.getResources() == null) {
        continue;
      }
      if (gpu(c.getResources().getRequests()) || gpu(c.getResources().getLimits())) {
        return true;
      }
    }
    return false;
  }

  private static boolean gpu(Map<String, Quantity> resources) {
    return resources != null
        && resources.keySet().stream()
            .anyMatch(k -> GPU_RESOURCE_PREFIXES.stream().anyMatch(k::startsWith));
  }

  /** Completed pods hold no GPU and need no eviction. */
  public static boolean finished(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  public static boolean terminating(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  /** DaemonSet pods (the operands themselves) are never evicted: they would come right back. */
  public static boolean daemonSetPod(Pod pod) {
    return UpgradeViews.daemonSetController(pod) != null;
  }

  /** A static pod's mirror: the API cannot evict it. */
  public static boolean mirror(Pod pod) {
    Map<String, String> a = pod.getMetadata().getAnnotations();
    return a != null && a.containsKey("kubernetes.io/config.mirror");
  }

  /** A pod some controller recreates after eviction (else eviction loses it for good). */
  public static boolean managed(Pod pod) {
    return UpgradeViews.controllerRef(pod) != null;
  }

  public static boolean usesEmptyDir(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getVolumes() != null
        && pod.getSpec().getVolumes().stream().anyMatch(v -> v.getEmptyDir() != null);
  }

  /** The user excluded this pod from drains. */
  public static boolean drainSkip(Pod pod) {
    Map<String, String> l = pod.getMetadata().getLabels();
    return l != null && Labels.TRUE.equals(l.get(UpgradeKeys.DRAIN_SKIP));
  }

  /** namespace/name, for messages. */
  public static String ref(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
