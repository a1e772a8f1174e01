package io.gpuoperator.operator.operand;

/**
 * An operand's rendering for this project's image: the subcommand of our binary that runs it and
 * what is specific to that rendering. Its manifests are the operand's folder with the files of
 * {@code manifests/<operand>/agent/} laid over it (see {@link Manifests#load(String, String)}).
 *
 * @param subcommand our agent, e.g. {@code device-plugin}; the rendering is only chosen when the
 *     running binary has this subcommand
 * @param transform what is specific to our agent's rendering
 * @param byDefault whether the operand runs this project's image when the policy names none; when
 *     false the agent only runs where the policy names this project's image
 */
public record Agent(String subcommand, Transform transform, boolean byDefault) {
  /** The overlay folder of an agent rendering. */
  public static final String OVERLAY = "agent";

  public Agent {
    java.util.Objects.requireNonNull(subcommand, "subcommand");
    transform = transform == null ? Transform.NONE : transform;
  }

  /** An agent that is the operand's default when the running binary has its subcommand. */
  public Agent(String subcommand, Transform transform) {
    this(subcommand, transform, true);
  }
}
