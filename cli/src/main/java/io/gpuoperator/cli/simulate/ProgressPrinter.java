package io.gpuoperator.cli.simulate;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Prints what changed between two snapshots of the simulated cluster: for a small cluster one line
 * per event (a node labelled with its product, its operands ready count, its GPU resources, the
 * policy's state); above {@link #COUNTS_ABOVE} nodes, where that would be thousands of lines, one
 * line of counts when they change (nodes ready, GPU nodes labelled and advertising, operands
 * ready), and a table per product instead of per node.
 */
final class ProgressPrinter {
  /** Clusters larger than this get counts instead of a line per node event. */
  static final int COUNTS_ABOVE = 20;

  private final PrintWriter out;
  private final boolean counts;
  private final long startNanos = System.nanoTime();
  private SimulationStatus last;
  private String lastCounts;

  ProgressPrinter(PrintWriter out) {
    this(out, 0);
  }

  ProgressPrinter(PrintWriter out, int nodes) {
    this.out = out;
    this.counts = nodes > COUNTS_ABOVE;
  }

  void step(String what) {
    line(what);
  }

  void update(SimulationStatus now) {
    if (counts) {
      String line = countsLine(now);
      if (!line.equals(lastCounts)) {
        line(line);
        lastCounts = line;
      }
      last = now;
      return;
    }
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
    (counts ? productTable(status) : status.table()).forEach(out::println);
    out.flush();
  }

  /** Counts of a snapshot, e.g. {@code nodes ready 98/100, GPU nodes labelled 70/75 ...}. */
  static String countsLine(SimulationStatus s) {
    int ready = 0;
    int gpuNodes = 0;
    int labelled = 0;
    int advertising = 0;
    int operandsReady = 0;
    int operands = 0;
    int settled = 0;
    for (SimulationStatus.NodeRow n : s.nodes()) {
      ready += "True".equals(n.nodeReady()) ? 1 : 0;
      if (n.gpus() > 0) {
        gpuNodes++;
        labelled += n.product() != null ? 1 : 0;
        advertising += n.advertisesGpus() ? 1 : 0;
        settled += n.driverSettled() ? 1 : 0;
      }
      operandsReady += n.operandsReady();
      operands += n.operands();
    }
    return String.format(
            "nodes ready %d/%d, GPU nodes labelled %d/%d, advertising %d/%d, operands ready %d/%d,"
                + " ClusterPolicy %s",
            ready,
            s.nodes().size(),
            labelled,
            gpuNodes,
            advertising,
            gpuNodes,
            operandsReady,
            operands,
            s.policyState() == null ? "-" : s.policyState())
        // Only while the operator still has drivers to mark done (the last step before ready).
        + (settled < gpuNodes ? ", upgrade-done " + settled + "/" + gpuNodes : "");
  }

  /** One row per product (CPU nodes as {@code -}): nodes, ready, labelled, advertising. */
  static List<String> productTable(SimulationStatus s) {
    Map<String, int[]> rows = new TreeMap<>();
    for (SimulationStatus.NodeRow n : s.nodes()) {
      String key = n.gpus() == 0 ? "-" : n.product() == null ? "(unlabelled)" : n.product();
      int[] r = rows.computeIfAbsent(key, k -> new int[5]);
      r[0]++;
      r[1] += "True".equals(n.nodeReady()) ? 1 : 0;
      r[2] += n.labelledCorrectly() ? 1 : 0;
      r[3] += n.advertisesGpus() ? 1 : 0;
      r[4] += n.operandsReady() == n.operands() ? 1 : 0;
    }
    List<String> out = new ArrayList<>();
    out.add(
        String.format(
            "%-28s %6s %6s %9s %12s %15s",
            "PRODUCT", "NODES", "READY", "LABELLED", "ADVERTISING", "OPERANDS READY"));
    rows.forEach(
        (k, r) ->
            out.add(String.format("%-28s %6d %6d %9d %12d %15d", k, r[0], r[1], r[2], r[3], r[4])));
    return out;
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
