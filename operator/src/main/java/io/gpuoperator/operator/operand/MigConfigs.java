package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.node.mig.MigConfigFile;
import io.gpuoperator.node.mig.MigConfigGenerator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The MIG configurations the operator publishes in {@code default-mig-parted-config}: the set
 * generated from the hardware tables, plus the policy's inline {@code spec.migManager.configs} (an
 * inline name replaces the generated one).
 */
public final class MigConfigs {
  /** How the inline configs are named in errors. */
  public static final String FIELD = "spec.migManager.configs";

  private MigConfigs() {}

  /**
   * The policy's inline configs as a MIG config file, or null when it declares none; a
   * ConfigException (file, field, reason) when they are malformed.
   */
  public static MigConfigFile inline(ClusterPolicySpec spec) {
    var m = spec.migManager;
    if (m == null || m.configs == null || m.configs.isEmpty()) {
      return null;
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("version", MigConfigFile.VERSION);
    doc.put("mig-configs", m.configs);
    return MigConfigFile.parse(Serialization.asYaml(doc), FIELD);
  }

  /** The generated set with the inline configs applied over it. */
  public static MigConfigFile effective(ClusterPolicySpec spec) {
    MigConfigFile defaults = MigConfigGenerator.defaults();
    MigConfigFile inline = inline(spec);
    if (inline == null) {
      return defaults;
    }
    Map<String, List<io.gpuoperator.node.mig.MigConfigSpec>> merged =
        new LinkedHashMap<>(defaults.migConfigs());
    merged.putAll(inline.migConfigs());
    return new MigConfigFile(MigConfigFile.VERSION, merged);
  }
}
