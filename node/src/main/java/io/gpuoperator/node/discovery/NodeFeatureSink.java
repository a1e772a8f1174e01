package io.gpuoperator.node.discovery;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the labels as NFD's {@code NodeFeature} ({@code nfd.k8s-sigs.io/v1alpha1}) named {@code
 * nvidia-features-for-<node>}; NFD's master turns it into Node labels. Written only when the labels
 * differ; never deleted on shutdown.
 */
public record NodeFeatureSink(KubernetesClient client, String namespace, String nodeName)
    implements LabelSink {
  private static final Logger LOG = LoggerFactory.getLogger(NodeFeatureSink.class);

  /** NFD's API group/version and kind. */
  public static final String API_VERSION = "nfd.k8s-sigs.io/v1alpha1";

  public static final String KIND = "NodeFeature";
  public static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";

  /** The object's name for a node. */
  public static String name(String nodeName) {
    return "nvidia-features-for-" + nodeName;
  }

  /** True when the API server serves NodeFeature (NFD is installed). */
  public static boolean available(KubernetesClient client) {
    return client.supports(API_VERSION, KIND);
  }

  private MixedOperation<GenericKubernetesResource, ?, Resource<GenericKubernetesResource>> ops() {
    return client.genericKubernetesResources(API_VERSION, KIND);
  }

  @Override
  public void publish(SortedMap<String, String> labels) {
    String name = name(nodeName);
    GenericKubernetesResource existing = ops().inNamespace(namespace).withName(name).get();
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("labels", new LinkedHashMap<>(labels));
    spec.put("features", Map.of("flags", Map.of(), "attributes", Map.of(), "instances", Map.of()));
    if (existing == null) {
      GenericKubernetesResource nf =
          new GenericKubernetesResourceBuilder()
              .withApiVersion(API_VERSION)
              .withKind(KIND)
              .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .addToLabels(NODE_NAME_LABEL, nodeName)
              .endMetadata()
              .build();
      nf.setAdditionalProperty("spec", spec);
      ops().inNamespace(namespace).resource(nf).create();
      LOG.info("kind=NodeFeature namespace={} name={}: created", namespace, name);
      return;
    }
    Object old = existing.getAdditionalProperties().get("spec");
    Object oldLabels = old instanceof Map<?, ?> m ? m.get("labels") : null;
    if (Objects.equals(oldLabels, spec.get("labels"))) {
      return;
    }
    existing.setAdditionalProperty("spec", spec);
    ops().inNamespace(namespace).resource(existing).update();
    LOG.info("kind=NodeFeature namespace={} name={}: labels updated", namespace, name);
  }

  @Override
  public String describe() {
    return "NodeFeature " + namespace + "/" + name(nodeName);
  }
}
