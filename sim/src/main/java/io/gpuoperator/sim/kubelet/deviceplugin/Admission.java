package io.gpuoperator.sim.kubelet.deviceplugin;

/**
 * The outcome of admitting a pod: its assignment, or the reason and message the pod was failed with
 * (reason {@code UnexpectedAdmissionError}, as the kubelet's device manager reports).
 */
public record Admission(boolean admitted, PodAssignment assignment, String reason, String message) {
  /** The kubelet's reason for a pod whose devices could not be allocated. */
  public static final String UNEXPECTED_ADMISSION_ERROR = "UnexpectedAdmissionError";

  static Admission admitted(PodAssignment assignment) {
    return new Admission(true, assignment, null, null);
  }

  static Admission failed(String message) {
    return new Admission(false, null, UNEXPECTED_ADMISSION_ERROR, message);
  }
}
