package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * How MIG devices become resources ({@code mig.strategy}): one type from the ClusterPolicy field to
 * the agents that act on it (the device plugin advertises by it, feature discovery labels by it),
 * so the policy, the operator's rendering and the agents' flags cannot disagree.
 */
public enum MigStrategy {
  /** MIG is ignored: every GPU is one {@code nvidia.com/gpu}. */
  @JsonProperty("none")
  NONE,
  /** All GPUs have MIG enabled with one profile: MIG devices are {@code nvidia.com/gpu}. */
  @JsonProperty("single")
  SINGLE,
  /** One resource per MIG profile, {@code nvidia.com/mig-<profile>}, plus whole GPUs. */
  @JsonProperty("mixed")
  MIXED;

  /**
   * What a policy without {@code mig.strategy} gets, as NVIDIA's images do when the original passes
   * them none (the chart sets {@code single} explicitly).
   */
  public static final MigStrategy DEFAULT = NONE;

  /** The spelling of the policy, the flags and the variables. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses that spelling (any case); the error names the value and what is accepted. */
  public static MigStrategy parse(String value) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    for (MigStrategy s : values()) {
      if (s.value().equals(v)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "unknown MIG strategy \"" + value + "\"; expected none, single or mixed");
  }
}
