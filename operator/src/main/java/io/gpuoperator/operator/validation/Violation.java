package io.gpuoperator.operator.validation;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One reason a policy is invalid.
 *
 * @param path field path as the API server writes it, e.g. "spec.cdi.nriPluginEnabled"
 * @param reason what is wrong and what was expected
 */
public record Violation(String path, String reason) {
  @Override
  public String toString() {
    return path + ": " + reason;
  }

  static String describe(List<Violation> violations) {
    return violations.stream().map(Violation::toString).collect(Collectors.joining("; "));
  }
}
