package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.sim.controlplane.K8sVersions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OLM bundle in {@code deploy/olm} passes OLM's own bundle validator: {@code operator-verify
 * manifests --object_validate} of {@code github.com/operator-framework/api} (the CSV's fields and
 * install strategy, the owned CRDs present and matching, the annotations, the objects), built by
 * {@code scripts/test-deps.sh}. It reports problems as {@code level=error} lines and always exits
 * 0, so the test reads its output; a bundle missing an owned CRD shows that it does report them.
 */
class OlmBundleVerifyTest {
  private static Path verifier() {
    return CachedTestFile.of(
        "gpu-operator.olm.verify",
        Path.of("olm-verify", K8sVersions.OLM_API, "operator-verify"),
        "olm_verify");
  }

  static List<String> verify(Path bundle) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                verifier().toString(),
                "manifests",
                "--object_validate",
                bundle.toAbsolutePath().toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().toList();
  }

  @Test
  void olmsValidatorFindsNoErrorInTheBundle() throws Exception {
    List<String> lines = verify(OlmBundle.DIR);
    assertThat(lines)
        .as("operator-verify's output")
        .noneMatch(l -> l.contains("level=error") || l.contains("level=fatal"));
  }

  @Test
  void itReportsABundleWhoseOwnedCrdIsMissing(@TempDir Path dir) throws Exception {
    copy(OlmBundle.DIR, dir);
    String crd = ChartFiles.CRDS.get(0);
    Files.delete(dir.resolve("manifests").resolve(crd));
    assertThat(verify(dir))
        .anyMatch(
            l -> l.contains("level=error") && l.contains("owned CRD") && l.contains("not found"));
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
