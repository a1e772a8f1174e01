package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events about cluster-scoped objects (policies, nodes) in {@link
 * ReconcilerKeys#EVENTS_NAMESPACE}, as {@code kubectl describe} shows them. A failure to record is
 * logged, never thrown: an Event is a courtesy, not part of the reconcile.
 */
public final class EventRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
  private static final int MAX_MESSAGE = 1000;

  private final KubernetesClient client;

  public EventRecorder(KubernetesClient client) {
    this.client = client;
  }

  public void warning(HasMetadata about, String reason, String message) {
    record(about, "Warning", reason, message);
  }

  public void normal(HasMetadata about, String reason, String message) {
    record(about, "Normal", reason, message);
  }

  private void record(HasMetadata about, String type, String reason, String message) {
    String now = Instant.now().toString();
    String name = about.getMetadata().getName();
    // A namespaced object's events live in its namespace (kubectl describe finds them there).
    String objectNamespace = about.getMetadata().getNamespace();
    String namespace =
        objectNamespace == null || objectNamespace.isEmpty()
            ? ReconcilerKeys.EVENTS_NAMESPACE
            : objectNamespace;
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(name + "." + UUID.randomUUID().toString().substring(0, 8))
                  .withNamespace(namespace)
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion(about.getApiVersion())
                  .withKind(about.getKind())
                  .withNamespace(objectNamespace)
                  .withName(name)
                  .withUid(about.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType(type)
                  .withReason(reason)
                  .withMessage(
                      message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .withNewSource()
                  .withComponent("gpu-operator")
                  .endSource()
                  .build())
          .create();
    } catch (RuntimeException e) {
      LOG.warn("{} {}: cannot record event {}: {}", about.getKind(), name, reason, e.getMessage());
    }
  }
}
