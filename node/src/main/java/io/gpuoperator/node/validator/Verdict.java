package io.gpuoperator.node.validator;

/**
 * What a step found: ready, with the marker to write (a step's own, or the host variant
 * vgpu-manager writes) and its content; or skipped, with the reason, when its feature is off on
 * this node: then no marker is written and the step still succeeds, as in the original.
 */
public record Verdict(String marker, String content, String skipped) {
  static Verdict ready(Component c, String content) {
    return new Verdict(c.marker(), content, null);
  }

  static Verdict readyAs(String marker) {
    return new Verdict(marker, "", null);
  }

  static Verdict skip(String reason) {
    return new Verdict(null, null, reason);
  }

  public boolean isSkipped() {
    return skipped != null;
  }
}
