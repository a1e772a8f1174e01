package io.gpuoperator.operator;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registered for every IT of this module (failsafe turns on JUnit's extension autodetection): an
 * {@link NullPointerException} inside an Awaitility wait means "not there yet" (an object whose
 * status the controller has not written, a field a later pass fills), so the wait goes on instead
 * of failing at once; Awaitility retries only assertion errors otherwise. A wait that times out
 * still names the last such exception as its cause.
 */
public final class AwaitilityDefaults implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    Awaitility.ignoreExceptionByDefault(NullPointerException.class);
  }
}
