package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.api.v1.SandboxWorkloadsSpec.Workload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Large clusters get counts, not a line per node. */
class ProgressPrinterTest {
  private static List<SimulationStatus.NodeRow> rows(int gpuNodes, int labelled, int cpuNodes) {
    List<SimulationStatus.NodeRow> out = new ArrayList<>();
    for (int i = 0; i < gpuNodes; i++) {
      boolean l = i < labelled;
      out.add(
          new SimulationStatus.NodeRow(
              "h100-" + i,
              8,
              l ? "NVIDIA-H100-80GB-HBM3" : null,
              l ? Map.of("nvidia.com/gpu", 8L) : Map.of(),
              l ? 6 : 2,
              6,
              "True",
              true,
              Workload.CONTAINER,
              null));
    }
    for (int i = 0; i < cpuNodes; i++) {
      out.add(
          new SimulationStatus.NodeRow(
              "cpu-" + i, 0, null, Map.of(), 0, 0, "False", true, Workload.CONTAINER, null));
    }
    return out;
  }

  @Test
  void largeClusterPrintsCountsOnlyWhenTheyChange() {
    StringWriter text = new StringWriter();
    ProgressPrinter p = new ProgressPrinter(new PrintWriter(text), 30);
    p.update(new SimulationStatus("notReady", List.of(), rows(20, 5, 10)));
    p.update(new SimulationStatus("notReady", List.of(), rows(20, 5, 10)));
    p.update(new SimulationStatus("ready", List.of(), rows(20, 20, 10)));
    List<String> lines = text.toString().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .endsWith(
            "nodes ready 20/30, GPU nodes labelled 5/20, advertising 5/20, operands ready 60/120,"
                + " ClusterPolicy notReady");
    assertThat(lines.get(1))
        .endsWith(
            "nodes ready 20/30, GPU nodes labelled 20/20, advertising 20/20,"
                + " operands ready 120/120, ClusterPolicy ready");
  }

  @Test
  void largeClusterTableHasARowPerProduct() {
    StringWriter text = new StringWriter();
    new ProgressPrinter(new PrintWriter(text), 30)
        .table(new SimulationStatus("ready", List.of(), rows(20, 18, 10)));
    List<String> lines = text.toString().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(1).split(" +")).containsExactly("(unlabelled)", "2", "2", "0", "0", "0");
    assertThat(lines.get(2).split(" +")).containsExactly("-", "10", "0", "10", "10", "10");
    assertThat(lines.get(3).split(" +"))
        .containsExactly("NVIDIA-H100-80GB-HBM3", "18", "18", "18", "18", "18");
  }

  @Test
  void smallClusterPrintsEvents() {
    StringWriter text = new StringWriter();
    ProgressPrinter p = new ProgressPrinter(new PrintWriter(text), 2);
    p.update(new SimulationStatus("ready", List.of(), rows(1, 1, 1)));
    assertThat(text.toString()).contains("node h100-0: labelled nvidia.com/gpu.product=");
  }
}
