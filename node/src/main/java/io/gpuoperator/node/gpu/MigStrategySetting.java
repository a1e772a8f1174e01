package io.gpuoperator.node.gpu;

import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.config.Setting;

/**
 * The {@code --mig-strategy} setting as every agent that acts on it reads it: one flag, one config
 * file field, one parser, one default and one spelling, from {@link MigStrategy}, the type the
 * ClusterPolicy field has too. An agent adds only its own variables (the original's images name
 * them differently: {@code MIG_STRATEGY}, {@code GFD_MIG_STRATEGY}) and its help sentence.
 */
public final class MigStrategySetting {
  /** Everything but the variables and the help text. */
  public static final Setting<MigStrategy> BASE =
      Setting.of("--mig-strategy", MigStrategy::parse)
          .field("flags.migStrategy")
          .label("none|single|mixed")
          .orElse(MigStrategy.DEFAULT, MigStrategy.DEFAULT.value())
          .format(MigStrategy::value);

  private MigStrategySetting() {}
}
