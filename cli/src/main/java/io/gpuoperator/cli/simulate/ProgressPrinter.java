package io.gpuoperator.cli.simulate;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Prints what changed between two snapshots of the simulated cluster, one line per event: a node
 * labelled with its product, its operands ready count, its GPU resources, the policy's state.
 */
final class ProgressPrinter {
  private final PrintWriter out;
  private final long startNanos = System.nanoTime();
  private SimulationStatus last;

  ProgressPrinter(PrintWriter out) {
    this.out = out;
  }

  void step(String what) {
    line(what);
  }

  void update(SimulationStatus now) {
    Map<String, SimulationStatus.NodeRow> before = new HashMap<>();
    if (last != null) {
      last.nodes().forEach(n -> before.put(n.name(), n));
    }
    for (SimulationStatus.NodeRow n : now.nodes()) {
      SimulationStatus.NodeRow b = before.get(n.name());
      if (!Objects.equals(b == null ? null : b.nodeReady(), n.nodeReady())
          && n.nodeReady() != null) {
        line("node " + n.name() + ": Ready=" + n.nodeReady());
      }
      if (!Objects.equals(b == null ? null : b.product(), n.product())) {
        line(
            "node "
                + n.name()
                + ": "
                + (n.product() == null
                    ? "product label removed"
                    : "labelled " + SimulationStatus.PRODUCT_LABEL + "=" + n.product()));
      }
      if (b == null || b.operandsReady() != n.operandsReady() || b.operands() != n.operands()) {
        if (n.operands() > 0 || b != null) {
          line("node " + n.name() + ": operands ready " + n.operandsReady() + "/" + n.operands());
        }
      }
      if (!Objects.equals(b == null ? null : b.resources(), n.resources())
          && (b != null || !n.resources().isEmpty())) {
        line("node " + n.name() + ": allocatable " + n.resourcesText());
      }
    }
    if (last == null || !Objects.equals(last.policyState(), now.policyState())) {
      if (now.policyState() != null) {
        line("ClusterPolicy: " + now.policyState());
      }
    }
    last = now;
  }

  void table(SimulationStatus status) {
    status.table().forEach(out::println);
    out.flush();
  }

  Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  private void line(String text) {
    long s = elapsed().toSeconds();
    out.printf("[%3d s] %s%n", s, text);
    out.flush();
  }
}
