package io.gpuoperator.node.deviceplugin;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuLink;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pairwise affinity of GPUs, read once from the backend: NVLinks weigh most (100 each, as in
 * go-gpuallocator), then the PCIe distance (60 same board ... 10 across CPUs), then a shared NUMA
 * node (10).
 */
public final class LinkScores {
  private static final Logger LOG = LoggerFactory.getLogger(LinkScores.class);
  private final int[][] scores;

  LinkScores(int[][] scores) {
    this.scores = scores;
  }

  /** No topology: every pair scores the same. */
  public static LinkScores flat(int gpus) {
    return new LinkScores(new int[gpus][gpus]);
  }

  /**
   * Scores every pair of the backend's GPUs. A pair whose link the backend cannot report (an old
   * driver, a lost GPU) is scored by NUMA node alone, so allocation still works.
   */
  public static LinkScores read(GpuBackend backend) {
    List<GpuDevice> gpus = backend.devices();
    int n = gpus.size();
    int[][] s = new int[n][n];
    for (int a = 0; a < n; a++) {
      for (int b = a + 1; b < n; b++) {
        int score;
        try {
          GpuLink link = backend.link(a, b);
          score = link.nvLinks() * 100 + pcieScore(link);
        } catch (GpuBackendException e) {
          LOG.warn("no topology between GPUs {} and {}: {}", a, b, e.getMessage());
          score = 0;
        }
        if (gpus.get(a).numaNode() >= 0 && gpus.get(a).numaNode() == gpus.get(b).numaNode()) {
          score += 10;
        }
        s[a][b] = score;
        s[b][a] = score;
      }
    }
    return new LinkScores(s);
  }

  private static int pcieScore(GpuLink link) {
    return switch (link.pcie()) {
      case INTERNAL -> 60;
      case SINGLE -> 50;
      case MULTIPLE -> 40;
      case HOSTBRIDGE -> 30;
      case NODE -> 20;
      case SYSTEM -> 10;
    };
  }

  /** The score of a pair of GPU indices (0 for unknown indices). */
  public int score(int a, int b) {
    if (a < 0 || b < 0 || a >= scores.length || b >= scores.length) {
      return 0;
    }
    return scores[a][b];
  }
}
