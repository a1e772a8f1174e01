package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.PolicyStatus;
import io.gpuoperator.operator.status.PolicyStatusModel;
import org.slf4j.Logger;

/**
 * Writes the status of a cluster-scoped resource with a {@link PolicyStatus} (NVIDIADriver,
 * GPUCluster) only when it says something new; a warning goes to an Event along with the change
 * that brought it.
 */
final class StatusWriter {
  private StatusWriter() {}

  static <S extends PolicyStatus, T extends CustomResource<?, S>> void write(
      KubernetesClient client,
      EventRecorder events,
      Logger log,
      Class<T> type,
      T resource,
      S status,
      String warning) {
    if (PolicyStatusModel.sameAs(resource.getStatus(), status)) {
      return;
    }
    String patch =
        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + Serialization.asJson(status) + "}]";
    client
        .resources(type)
        .withName(resource.getMetadata().getName())
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
    resource.setStatus(status);
    log.info(
        "{} {}: state {}{}",
        resource.getKind(),
        resource.getMetadata().getName(),
        status.state == null ? "" : status.state.value(),
        warning == null ? "" : " (" + warning + ")");
    if (warning != null) {
      var ready = PolicyStatusModel.ready(status);
      events.warning(resource, ready == null ? "Warning" : ready.getReason(), warning);
    }
  }
}
