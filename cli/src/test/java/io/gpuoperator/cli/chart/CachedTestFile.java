package io.gpuoperator.cli.chart;

import io.gpuoperator.sim.controlplane.K8sVersions;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A third-party file the tests read from where {@code scripts/test-deps.sh} caches it, or from a
 * system property. Without it the test skips on a developer's machine and fails under {@code
 * CI=true}, so a missing install step cannot hide behind a green run.
 */
final class CachedTestFile {
  private CachedTestFile() {}

  /**
   * The file: {@code -D<property>} when set, else {@code cached} under the test-dependency cache;
   * {@code step} names the test-deps.sh step that fetches it.
   */
  static Path of(String property, Path cached, String step) {
    String set = System.getProperty(property, "");
    Path file = set.isBlank() ? K8sVersions.cacheRoot().resolve(cached) : Path.of(set);
    String missing = file + " is missing: run scripts/test-deps.sh (its " + step + " step)";
    if (!Files.isRegularFile(file) && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(missing + " (CI=true: a missing test dependency is a failure)");
    }
    Assumptions.assumeTrue(Files.isRegularFile(file), missing);
    return file;
  }
}
