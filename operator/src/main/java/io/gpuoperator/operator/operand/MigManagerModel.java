package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.MigManagerSpec;

/**
 * The MIG manager {@code nvidia-mig-manager} (our image's {@code mig-manager} subcommand) with the
 * default ConfigMaps {@code default-mig-parted-config} (the configs generated from the hardware
 * tables plus the policy's inline {@code spec.migManager.configs}) and {@code default-gpu-clients};
 * a default ConfigMap is not rendered when the policy names its own.
 */
public final class MigManagerModel extends ManifestOperandModel {
  static final String CONTAINER = "nvidia-mig-manager";
  static final String DEFAULT_CONFIG = "default-mig-parted-config";
  static final String DEFAULT_GPU_CLIENTS = "default-gpu-clients";

  public MigManagerModel() {
    super(OperandNames.MIG_MANAGER);
  }

  @Override
  protected ComponentSpec component(ClusterPolicySpec spec) {
    return spec.migManager;
  }

  @Override
  protected String path() {
    return "spec.migManager";
  }

  @Override
  protected String mainContainer() {
    return CONTAINER;
  }

  @Override
  protected boolean usesRuntimeClass() {
    return true;
  }

  @Override
  protected boolean keep(HasMetadata object, RenderContext ctx) {
    if (!(object instanceof ConfigMap cm)) {
      return true;
    }
    String name = cm.getMetadata().getName();
    if (name.equals(DEFAULT_CONFIG)) {
      return configName(ctx.spec()).equals(DEFAULT_CONFIG);
    }
    if (name.equals(DEFAULT_GPU_CLIENTS)) {
      return clientsName(ctx.spec()).equals(DEFAULT_GPU_CLIENTS);
    }
    return true;
  }

  @Override
  protected void customize(HasMetadata object, RenderContext ctx) {
    if (object instanceof ConfigMap cm && cm.getMetadata().getName().equals(DEFAULT_CONFIG)) {
      cm.getData().put("config.yaml", MigConfigs.effective(ctx.spec()).toYaml());
      return;
    }
    if (!(object instanceof DaemonSet ds)) {
      return;
    }
    var pod = ds.getSpec().getTemplate().getSpec();
    Container c = DaemonSets.container(pod, CONTAINER);
    for (Volume v : pod.getVolumes()) {
      if (v.getName().equals("mig-parted-config")) {
        v.getConfigMap().setName(configName(ctx.spec()));
      } else if (v.getName().equals("gpu-clients")) {
        v.getConfigMap().setName(clientsName(ctx.spec()));
      }
    }
    env(c, "CDI_ENABLED", String.valueOf(ctx.cdiEnabled()));
    MigManagerSpec spec = ctx.spec().migManager;
    if (spec != null
        && spec.config != null
        && spec.config.defaultEntry != null
        && !spec.config.defaultEntry.isBlank()) {
      env(c, "DEFAULT_MIG_CONFIG", spec.config.defaultEntry.trim());
    }
  }

  static String configName(ClusterPolicySpec spec) {
    MigManagerSpec m = spec.migManager;
    return m == null || m.config == null || m.config.name == null || m.config.name.isBlank()
        ? DEFAULT_CONFIG
        : m.config.name.trim();
  }

  static String clientsName(ClusterPolicySpec spec) {
    MigManagerSpec m = spec.migManager;
    return m == null
            || m.gpuClientsConfig == null
            || m.gpuClientsConfig.name == null
            || m.gpuClientsConfig.name.isBlank()
        ? DEFAULT_GPU_CLIENTS
        : m.gpuClientsConfig.name.trim();
  }
}
