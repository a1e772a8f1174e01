package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;

/**
 * Our MIG manager ({@code gpu-operator mig-manager}) in the {@code nvidia-mig-manager} DaemonSet:
 * it applies the node's {@code nvidia.com/mig.config} from the policy's MIG config ConfigMap.
 */
public final class MigManagerAgentTransform implements Transform {
  private final MigManagerTransform nvidia = new MigManagerTransform();

  /** The same ConfigMaps as NVIDIA's rendering. */
  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
    return nvidia.keep(object, ctx);
  }

  @Override
  public void apply(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof DaemonSet ds)) {
      MigManagerTransform.defaultConfigMap(object, ctx);
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    for (Volume v : pod.getVolumes()) {
      if (v.getName().equals("mig-parted-config")) {
        v.getConfigMap().setName(MigManagerTransform.configName(ctx.spec()));
      } else if (v.getName().equals("gpu-clients")) {
        v.getConfigMap().setName(MigManagerTransform.clientsName(ctx.spec()));
      }
    }
    // No CDI_ENABLED or DEFAULT_MIG_CONFIG, which NVIDIA's MIG manager reads: our device plugin
    // writes the CDI specs after a change, and the operator labels a node without a MIG config
    // with the default (NodeLabelRules).
  }
}
