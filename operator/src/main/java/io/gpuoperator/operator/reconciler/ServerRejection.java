package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;

/**
 * The API server refused one of the objects rendered for a policy (HTTP 4xx on apply or dry run):
 * the object and the server's reasons, one per field, in a line short enough for a status condition
 * ({@code DaemonSet gpu-operator/nvidia-driver-daemonset: spec.template.spec.tolerations[0].effect:
 * Invalid value: "NoSchedule": effect must be 'NoExecute' when `tolerationSeconds` is set}),
 * instead of the client's whole response.
 */
public final class ServerRejection extends RuntimeException {
  /** The longest message kept; a status condition is read by people, not parsed. */
  static final int MAX_LENGTH = 400;

  private final ObjectKey object;
  private final List<String> reasons;

  private ServerRejection(ObjectKey object, List<String> reasons, Throwable cause) {
    super(object + ": " + shorten(String.join("; ", reasons)), cause);
    this.object = object;
    this.reasons = List.copyOf(reasons);
  }

  /**
   * The rejection of {@code object}, or null when {@code e} is not one (a 5xx, no permission, a
   * missing namespace, no answer: the environment, not the object).
   */
  public static ServerRejection of(HasMetadata object, KubernetesClientException e) {
    int code = e.getCode();
    if (code != 400 && code != 422) {
      return null;
    }
    return new ServerRejection(ObjectKey.of(object), reasons(e), e);
  }

  /** The object refused. */
  public ObjectKey object() {
    return object;
  }

  /** The server's reasons, each naming its field where the server did. */
  public List<String> reasons() {
    return reasons;
  }

  static List<String> reasons(KubernetesClientException e) {
    Status s = e.getStatus();
    List<String> out = new ArrayList<>();
    if (s != null && s.getDetails() != null && s.getDetails().getCauses() != null) {
      for (StatusCause c : s.getDetails().getCauses()) {
        String message = c.getMessage() == null ? "" : c.getMessage().strip();
        String field = c.getField();
        if (field != null && !field.isBlank() && !message.startsWith(field)) {
          out.add(field + ": " + message);
        } else {
          out.add(message);
        }
      }
    }
    if (out.isEmpty()) {
      String m = s != null && s.getMessage() != null ? s.getMessage() : e.getMessage();
      out.add(m == null ? "HTTP " + e.getCode() : m.strip().lines().findFirst().orElse(""));
    }
    return out;
  }

  static String shorten(String text) {
    return text.length() <= MAX_LENGTH ? text : text.substring(0, MAX_LENGTH - 1) + "…";
  }
}
