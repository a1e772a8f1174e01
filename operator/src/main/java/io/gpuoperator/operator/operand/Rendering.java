package io.gpuoperator.operator.operand;

/**
 * Which of its two renderings an operand got, chosen by the image the policy names: NVIDIA's image
 * runs under the original's container contract (commands, env, mounts, entrypoint ConfigMaps); this
 * project's image runs our agent's subcommand.
 *
 * @param kind which rendering
 * @param image the main container's image (null for operands without a container)
 * @param agent our agent's subcommand (kind AGENT only)
 * @param note why NVIDIA's image runs although the policy named ours, or null
 */
public record Rendering(Kind kind, String image, String agent, String note) {
  /** The two renderings, and none for operands without a container (RBAC, RuntimeClasses). */
  public enum Kind {
    NVIDIA,
    AGENT,
    NONE
  }

  static final Rendering NONE = new Rendering(Kind.NONE, null, null, null);

  static Rendering nvidia(String image, String note) {
    return new Rendering(Kind.NVIDIA, image, null, note);
  }

  static Rendering agent(String image, String subcommand) {
    return new Rendering(Kind.AGENT, image, subcommand, null);
  }

  /** Whether our agent runs. */
  public boolean isAgent() {
    return kind == Kind.AGENT;
  }

  /** One line for {@code plan} and logs, e.g. "our agent (gpu-operator device-plugin)". */
  public String describe() {
    return switch (kind) {
      case NVIDIA -> "NVIDIA's image, the original's contract" + (note == null ? "" : "; " + note);
      case AGENT -> "our agent (gpu-operator " + agent + ")";
      case NONE -> "";
    };
  }
}
