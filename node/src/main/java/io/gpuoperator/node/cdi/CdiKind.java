package io.gpuoperator.node.cdi;

import java.util.regex.Pattern;

/** CDI kinds ({@code <vendor>/<class>}) this project writes, and their syntax check. */
public final class CdiKind {
  /** The kind of the toolkit's spec that device plugins and users name GPUs by. */
  public static final String GPU = "nvidia.com/gpu";

  /** The kind of the management spec (every GPU, for operands such as the device plugin). */
  public static final String MANAGEMENT = "management.nvidia.com/gpu";

  // The CDI library's rules: vendor a domain-like name, class alphanumerics with - _ .
  private static final Pattern KIND =
      Pattern.compile(
          "[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?/[a-zA-Z0-9]([a-zA-Z0-9_.-]*[a-zA-Z0-9])?");

  private CdiKind() {}

  /** Throws, naming the expected form, unless {@code kind} is {@code <vendor>/<class>}. */
  public static String check(String kind) {
    if (kind == null || !KIND.matcher(kind).matches()) {
      throw new IllegalArgumentException(
          "CDI kind '" + kind + "' is not <vendor>/<class> (e.g. " + GPU + ")");
    }
    return kind;
  }
}
