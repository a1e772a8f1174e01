package io.gpuoperator.node.discovery;

import java.io.IOException;
import java.util.SortedMap;

/** Where a labelling pass's result goes: the NFD feature file, a NodeFeature, or the Node. */
public interface LabelSink {
  /**
   * Publishes the complete label set of this pass. Labels published before and missing now are
   * removed; labels are never removed any other way (not on shutdown).
   */
  void publish(SortedMap<String, String> labels) throws IOException;

  /** For logs, e.g. {@code file /etc/kubernetes/node-feature-discovery/features.d/gfd}. */
  String describe();
}
