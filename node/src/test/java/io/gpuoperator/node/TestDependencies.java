package io.gpuoperator.node;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Third-party files a test needs (fetched or built by scripts/test-deps.sh). Without them a test
 * skips on a developer's machine but fails in CI ({@code CI=true}), so a missing install step
 * cannot hide behind a green run.
 */
public final class TestDependencies {
  private TestDependencies() {}

  /** Skips the test, or fails it under {@code CI=true}, with {@code message} when absent. */
  public static void require(boolean present, String message) {
    if (!present && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + " (CI=true: a missing test dependency is a failure)");
    }
    assumeTrue(present, message);
  }
}
