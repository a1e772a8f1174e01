package io.gpuoperator.node.discovery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Labels the Node directly (for clusters without NFD): one merge patch per pass, only when
 * something differs, removing only labels this agent wrote before.
 *
 * <p>A pass whose labels are those this sink last published reads nothing: the Node is read again
 * (and any label removed by hand put back) only when the labels change or {@link #RESYNC} has
 * passed. A read of the Node every pass (60 s) is one GET a minute per GPU node for as long as the
 * cluster runs (12.5 a second at 750 GPU nodes).
 */
public final class NodeLabelSink implements LabelSink {
  /** How long labels equal to the last published ones go without reading the Node. */
  static final Duration RESYNC = Duration.ofMinutes(5);

  private static final Logger LOG = LoggerFactory.getLogger(NodeLabelSink.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private final KubernetesClient client;
  private final String nodeName;
  private SortedMap<String, String> published;
  private long checkedAt;

  public NodeLabelSink(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  @Override
  public synchronized void publish(SortedMap<String, String> labels) throws IOException {
    long now = System.nanoTime();
    if (labels.equals(published) && now - checkedAt < RESYNC.toNanos()) {
      return;
    }
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IOException("Node/" + nodeName + " does not exist");
    }
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    String managed =
        annotations == null ? null : annotations.get(GfdLabels.MANAGED_LABELS_ANNOTATION);
    Optional<Map<String, Object>> patch =
        NodeLabelPatch.compute(labels, node.getMetadata().getLabels(), managed);
    if (patch.isEmpty()) {
      remember(labels, now);
      return;
    }
    String body;
    try {
      body = JSON.writeValueAsString(patch.get());
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, nodeName))
        .patch(PatchContext.of(PatchType.JSON_MERGE), body);
    LOG.info("kind=Node name={}: labels patched: {}", nodeName, patch.get());
    remember(labels, now);
  }

  private void remember(SortedMap<String, String> labels, long now) {
    published = new TreeMap<>(labels);
    checkedAt = now;
  }

  @Override
  public String describe() {
    return "labels of Node/" + nodeName;
  }
}
