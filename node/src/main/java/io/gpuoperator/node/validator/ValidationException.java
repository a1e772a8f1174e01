package io.gpuoperator.node.validator;

/** A validation step failed; the message says what was checked and what was found. */
public class ValidationException extends Exception {
  public ValidationException(String message) {
    super(message);
  }

  public ValidationException(String message, Throwable cause) {
    super(message, cause);
  }
}
