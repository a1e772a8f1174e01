package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.MigManagerSpec;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NVIDIA's MIG manager ({@code nvidia-mig-manager}) under the original's contract, with the default
 * ConfigMaps {@code default-mig-parted-config} and {@code default-gpu-clients} (a default ConfigMap
 * is not rendered when the policy names another) and the entrypoint ConfigMap that waits for the
 * validated driver.
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
    boolean custom = customConfig(ctx.spec());
    for (Volume v : pod.getVolumes()) {
      if (v.getName().equals("mig-parted-config")) {
        v.getConfigMap().setName(configName(ctx.spec()));
        if (!custom) {
          // The default ConfigMap is the MIG manager's fallback, next to the hardware's profiles.
          v.getConfigMap()
              .setItems(
                  List.of(
                      new KeyToPathBuilder()
                          .withKey("config.yaml")
                          .withPath("config-default.yaml")
                          .build()));
        }
      } else if (v.getName().equals("gpu-clients")) {
        v.getConfigMap().setName(clientsName(ctx.spec()));
      }
    }
    if (custom) {
      DaemonSets.setEnv(c, "CONFIG_FILE", "/mig-parted-config/config.yaml");
    } else {
      DaemonSets.setEnv(c, "DEFAULT_CONFIG_FILE", "/mig-parted-config/config-default.yaml");
    }
    if (ctx.cdiEnabled()) {
      DaemonSets.setEnv(c, "CDI_ENABLED", "true");
      if (Section.TOOLKIT.enabled(ctx.spec())) {
        DaemonSets.setEnv(c, "NVIDIA_CDI_HOOK_PATH", ContainerToolkitTransform.cdiHookPath(ctx));
      }
    }
  }

  /**
   * Whether the policy names a MIG config ConfigMap; the original treats even an explicit {@code
   * default-mig-parted-config} as custom (no item remapping), though it still renders that one.
   */
  static boolean customConfig(ClusterPolicySpec spec) {
    MigManagerSpec m = spec.migManager;
    return m != null && m.config != null && !RenderContext.blank(m.config.name);
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
