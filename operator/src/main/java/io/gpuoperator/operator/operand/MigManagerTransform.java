package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.MigManagerSpec;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MIG manager {@code nvidia-mig-manager} (our image's {@code mig-manager} subcommand) with the
 * default ConfigMaps {@code default-mig-parted-config} and {@code default-gpu-clients}; a default
 * ConfigMap is not rendered when the policy names its own.
 */
public final class MigManagerTransform implements Transform {
  static final String CONTAINER = "nvidia-mig-manager";
  static final String DEFAULT_CONFIG = "default-mig-parted-config";
  static final String DEFAULT_GPU_CLIENTS = "default-gpu-clients";

  @Override
  public boolean keep(HasMetadata object, RenderContext ctx) {
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
  public void apply(HasMetadata object, RenderContext ctx) {
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
    DaemonSets.setEnv(c, "CDI_ENABLED", String.valueOf(ctx.cdiEnabled()));
    MigManagerSpec spec = ctx.spec().migManager;
    if (spec != null
        && spec.config != null
        && spec.config.defaultEntry != null
        && !spec.config.defaultEntry.isBlank()) {
      DaemonSets.setEnv(c, "DEFAULT_MIG_CONFIG", spec.config.defaultEntry.trim());
    }
  }

  /**
   * With the default ConfigMap, {@code spec.migManager.config.default} must name one of its
   * layouts.
   */
  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    MigManagerSpec m = spec.migManager;
    if (m == null || m.config == null) {
      return List.of();
    }
    String def = m.config.defaultEntry == null ? "" : m.config.defaultEntry.trim();
    if (configName(spec).equals(DEFAULT_CONFIG)
        && !def.isEmpty()
        && !defaultMigConfigs().contains(def)) {
      return List.of(
          new Violation(
              "spec.migManager.config.default",
              "'"
                  + def
                  + "' is not a layout of default-mig-parted-config (e.g. all-disabled,"
                  + " all-balanced, all-1g.10gb)"));
    }
    return List.of();
  }

  private static volatile Set<String> defaultMigConfigs;

  /** The layout names of the default mig-parted ConfigMap (read once). */
  static Set<String> defaultMigConfigs() {
    Set<String> names = defaultMigConfigs;
    if (names == null) {
      names = readDefaultMigConfigs();
      defaultMigConfigs = names;
    }
    return names;
  }

  @SuppressWarnings("unchecked")
  private static Set<String> readDefaultMigConfigs() {
    ConfigMap cm =
        Manifests.load(OperandNames.MIG_MANAGER).stream()
            .filter(ConfigMap.class::isInstance)
            .map(ConfigMap.class::cast)
            .filter(c -> c.getMetadata().getName().equals(DEFAULT_CONFIG))
            .findFirst()
            .orElseThrow();
    Map<String, Object> config =
        Serialization.unmarshal(cm.getData().get("config.yaml"), Map.class);
    return Set.copyOf(((Map<String, Object>) config.get("mig-configs")).keySet());
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
