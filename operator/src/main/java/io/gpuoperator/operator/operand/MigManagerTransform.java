package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.MigManagerSpec;
import io.gpuoperator.node.config.ConfigException;
import io.gpuoperator.node.mig.MigCatalog;
import io.gpuoperator.node.mig.MigConfigFile;
import io.gpuoperator.node.mig.MigConfigGenerator;
import io.gpuoperator.node.mig.MigConfigValidator;
import io.gpuoperator.operator.spec.Section;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
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
      defaultConfigMap(object, ctx);
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
   * {@code default-mig-parted-config} holds the configs generated from the GPUs' MIG tables plus
   * the policy's inline {@code spec.migManager.configs}.
   */
  static void defaultConfigMap(HasMetadata object, RenderContext ctx) {
    if (object instanceof ConfigMap cm && cm.getMetadata().getName().equals(DEFAULT_CONFIG)) {
      cm.getData().put("config.yaml", MigConfigs.effective(ctx.spec()).toYaml());
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
   * The inline configs must be well formed and valid for the GPUs they name (the hardware tables),
   * so a bad geometry is a condition before any node is touched; with the default ConfigMap, {@code
   * spec.migManager.config.default} must name one of its configs.
   */
  @Override
  public List<Violation> validate(ClusterPolicySpec spec) {
    List<Violation> out = new ArrayList<>();
    MigManagerSpec m = spec.migManager;
    if (m == null) {
      return out;
    }
    MigConfigFile inline = null;
    try {
      inline = MigConfigs.inline(spec);
    } catch (ConfigException e) {
      out.add(new Violation(MigConfigs.FIELD, e.getMessage()));
    }
    if (inline != null) {
      for (MigConfigValidator.Verdict v :
          MigConfigValidator.validate(inline, MigCatalog.builtIn())) {
        if (v.status() == MigConfigValidator.Status.INVALID) {
          out.add(
              new Violation(MigConfigs.FIELD + "." + v.config(), String.join("; ", v.details())));
        }
      }
    }
    if (m.config == null) {
      return out;
    }
    String def = m.config.defaultEntry == null ? "" : m.config.defaultEntry.trim();
    boolean inlineName = m.configs != null && m.configs.containsKey(def);
    if (configName(spec).equals(DEFAULT_CONFIG)
        && !def.isEmpty()
        && !defaultMigConfigs().contains(def)
        && !inlineName) {
      out.add(
          new Violation(
              "spec.migManager.config.default",
              "'"
                  + def
                  + "' is not a layout of default-mig-parted-config (e.g. all-disabled,"
                  + " all-balanced, all-1g.10gb)"));
    }
    return out;
  }

  /** The config names of the generated default set. */
  static Set<String> defaultMigConfigs() {
    return MigConfigGenerator.defaults().migConfigs().keySet();
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
