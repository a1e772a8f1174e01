package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSetBuilder;
import io.gpuoperator.api.v1.DevicePluginSpec;
import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.node.AgentContracts;
import io.gpuoperator.node.deviceplugin.DeviceListStrategy;
import io.gpuoperator.node.deviceplugin.DevicePluginSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The device plugin DaemonSet {@code nvidia-device-plugin-daemonset}: our image's {@code
 * device-plugin} subcommand advertises {@code nvidia.com/gpu} (and MIG resources) to the kubelet.
 *
 * <p>It runs unprivileged (issue 12): the GPUs come from the nvidia runtime, the kubelet's socket
 * directory from a hostPath; MPS sharing needs no mount of its own (the MPS pipe and shm are host
 * paths in the Allocate response, mounted into workloads by the kubelet), so no Bidirectional
 * propagation. With a MIG strategy other than {@code none} it must see every MIG device: {@code
 * NVIDIA_MIG_MONITOR_DEVICES=all}, which the nvidia runtime honours only for a container with
 * {@code CAP_SYS_ADMIN}, so that one capability is added (and privilege escalation is then left to
 * the runtime's default, which the API server requires with SYS_ADMIN).
 */
public final class DevicePluginAgentTransform implements MainContainerTransform {
  static final String CONFIG_DIR = "/available-configs";

  /** What the nvidia runtime requires for {@code NVIDIA_MIG_MONITOR_DEVICES}. */
  static final String SYS_ADMIN = "SYS_ADMIN";

  @Override
  public void apply(DaemonSet ds, PodSpec pod, Container c, RenderContext ctx) {
    surge(ds);
    DevicePluginSpec spec = ctx.spec().devicePlugin;
    DaemonSets.setEnv(c, DevicePluginSettings.MIG_STRATEGY, ctx.migStrategy());
    if (ctx.migStrategy() != MigStrategy.NONE) {
      DaemonSets.setEnv(c, AgentContracts.MIG_MONITOR_DEVICES, "all");
      SecurityContext sc = c.getSecurityContext();
      sc.setAllowPrivilegeEscalation(null);
      sc.getCapabilities().setAdd(new ArrayList<>(List.of(SYS_ADMIN)));
    }
    DaemonSets.setEnv(
        c, DevicePluginSettings.MPS_ROOT, Path.of(DevicePluginTransform.mpsRoot(ctx)));
    if (ctx.cdiEnabled()) {
      // The plugin writes its own CDI spec and names the devices in both CDI forms.
      DaemonSets.setEnv(
          c,
          DevicePluginSettings.DEVICE_LIST_STRATEGY,
          List.of(DeviceListStrategy.CDI_ANNOTATIONS, DeviceListStrategy.CDI_CRI));
      DaemonSets.setEnv(c, DevicePluginSettings.CDI_ANNOTATION_PREFIX, "cdi.k8s.io/");
    }
    if (spec != null
        && spec.config != null
        && spec.config.name != null
        && !spec.config.name.isBlank()) {
      // The per-node entry is picked by the node label nvidia.com/device-plugin.config.
      pod.getVolumes()
          .add(
              new VolumeBuilder()
                  .withName("available-configs")
                  .withNewConfigMap()
                  .withName(spec.config.name.trim())
                  .endConfigMap()
                  .build());
      c.getVolumeMounts()
          .add(
              new VolumeMountBuilder()
                  .withName("available-configs")
                  .withMountPath(CONFIG_DIR)
                  .build());
      DaemonSets.setEnv(c, DevicePluginSettings.CONFIG_DIR, Path.of(CONFIG_DIR));
      String def = spec.config.defaultEntry == null ? "" : spec.config.defaultEntry.trim();
      if (!def.isEmpty()) {
        DaemonSets.setEnv(c, DevicePluginSettings.DEFAULT_CONFIG, def);
      }
    }
  }

  /**
   * A rolling update starts the new pod next to the old one (maxSurge 1, maxUnavailable 0): the new
   * plugin serves on a socket of its own and registers before the old one stops, so a policy edit
   * never takes the node's GPUs out of its allocatable while the pods are swapped (with the
   * original's maxUnavailable 1 the node advertises none from the old pod's end to the new one's
   * registration). OnDelete is left as the policy asks. NVIDIA's image keeps the original's
   * strategy: its plugin always takes {@code nvidia-gpu.sock}, so two of them on a node would
   * fight.
   */
  static void surge(DaemonSet ds) {
    var strategy = ds.getSpec().getUpdateStrategy();
    if (strategy != null && "OnDelete".equals(strategy.getType())) {
      return;
    }
    ds.getSpec()
        .setUpdateStrategy(
            new DaemonSetUpdateStrategy(
                new RollingUpdateDaemonSetBuilder()
                    .withMaxSurge(new IntOrString(1))
                    .withMaxUnavailable(new IntOrString(0))
                    .build(),
                "RollingUpdate"));
  }
}
