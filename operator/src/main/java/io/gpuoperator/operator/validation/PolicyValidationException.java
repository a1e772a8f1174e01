package io.gpuoperator.operator.validation;

import java.util.List;

/** A policy the operator refuses, with every violation (field path and reason). */
public class PolicyValidationException extends RuntimeException {
  private final List<Violation> violations;

  public PolicyValidationException(List<Violation> violations) {
    super(Violation.describe(violations));
    this.violations = List.copyOf(violations);
  }

  public List<Violation> violations() {
    return violations;
  }
}
