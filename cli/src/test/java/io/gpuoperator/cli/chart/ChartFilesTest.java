package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart's generated files equal what the build generates now: the CRDs, the operands' RBAC and
 * the values schema. After changing the API or a manifest, regenerate them with {@code mvn -pl cli
 * -am test -Dtest=ChartFilesTest -Dchart.update=true -Dsurefire.failIfNoSpecifiedTests=false} (and
 * the golden files with {@code -Dtest=ChartTemplateTest}).
 */
class ChartFilesTest {
  static boolean update() {
    return Boolean.getBoolean("chart.update");
  }

  @Test
  void generatedFilesAreCurrent() throws IOException {
    for (Map.Entry<String, String> e : ChartFiles.expected().entrySet()) {
      Path file = ChartFiles.CHART.resolve(e.getKey());
      if (update()) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, e.getValue());
      }
      assertThat(file).as("%s (regenerate with -Dchart.update=true)", file).exists();
      assertThat(Files.readString(file))
          .as("%s differs from the build's; regenerate with -Dchart.update=true", file)
          .isEqualTo(e.getValue());
    }
  }

  @Test
  void chartVersionIsTheProjectVersion() {
    String chart = ChartFiles.read("Chart.yaml");
    String version = io.gpuoperator.api.OperandImages.projectVersion();
    assertThat(chart).contains("\nappVersion: \"" + version + "\"\n");
    assertThat(chart).contains("\nversion: " + version + "\n");
  }
}
