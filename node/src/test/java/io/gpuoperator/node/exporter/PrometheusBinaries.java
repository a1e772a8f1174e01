package io.gpuoperator.node.exporter;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's prometheus, promtool and prometheus-node-exporter, unpacked by scripts/test-deps.sh into
 * the cache (path in {@code -Dgpu-operator.prometheus.bin}); tests skip, saying so, without them.
 */
final class PrometheusBinaries {
  private PrometheusBinaries() {}

  /** The binary, or the test is skipped with what to run. */
  static Path require(String name) {
    String dir = System.getProperty("gpu-operator.prometheus.bin", "");
    Path bin = dir.isEmpty() ? null : Path.of(dir, name);
    Assumptions.assumeTrue(
        bin != null && Files.isExecutable(bin),
        name
            + " not found in '"
            + dir
            + "': scripts/test-deps.sh fetches it from Debian (it could not be fetched)");
    return bin;
  }
}
