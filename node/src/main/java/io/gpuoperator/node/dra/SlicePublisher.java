package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's ResourceSlices equal to its inventory: writes only when the devices or counters
 * changed, then every slice of the pool at once with a new pool generation (consumers use only the
 * newest generation, so a half-updated pool is never taken for a whole one), and deletes slices the
 * pool no longer needs. The first publication after a start always writes, continuing from the
 * generation found on the server.
 */
public final class SlicePublisher {
  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final String FIELD_MANAGER = "gpu-operator-dra-plugin";

  private final KubernetesClient client;
  private final ResourceApiVersion version;
  private final String driver;
  private final String node;
  private List<JsonNode> lastPublished;
  private long generation = -1;

  /** The publisher of the GPU driver's ({@code gpu.nvidia.com}) pool. */
  public SlicePublisher(KubernetesClient client, ResourceApiVersion version, String node) {
    this(client, version, DraNames.DRIVER, node);
  }

  /** The publisher of a driver's pool on the node. */
  public SlicePublisher(
      KubernetesClient client, ResourceApiVersion version, String driver, String node) {
    this.client = client;
    this.version = version;
    this.driver = driver;
    this.node = node;
  }

  /** The API version slices are written in. */
  public ResourceApiVersion version() {
    return version;
  }

  /** The pool generation last written; -1 before the first publication. */
  public synchronized long generation() {
    return generation;
  }

  /**
   * Publishes the inventory if it differs from what was last published.
   *
   * @return true when something was written
   * @throws CountersDroppedException when the server dropped the shared counters of a slice (the
   *     DRAPartitionableDevices feature gate is off)
   */
  public synchronized boolean publish(DeviceInventory inventory) {
    return publish(
        inventory.devices().size(),
        inventory.counterSets().size(),
        g -> ResourceSliceModel.build(node, inventory, g, version));
  }

  /** Publishes devices without counters (another driver's), if they differ from the last. */
  public synchronized boolean publish(List<io.fabric8.kubernetes.api.model.resource.v1.Device> d) {
    return publish(
        d.size(), 0, g -> ResourceSliceModel.build(driver, node, d, List.of(), g, version));
  }

  private boolean publish(
      int deviceCount,
      int counterSetCount,
      java.util.function.LongFunction<List<GenericKubernetesResource>> build) {
    List<JsonNode> desired = specs(build.apply(0));
    if (desired.equals(lastPublished)) {
      return false;
    }
    List<GenericKubernetesResource> existing = list();
    long next = generation + 1;
    for (GenericKubernetesResource r : existing) {
      next = Math.max(next, poolGeneration(r) + 1);
    }
    List<GenericKubernetesResource> slices = build.apply(next);
    Set<String> names = new HashSet<>();
    for (GenericKubernetesResource s : slices) {
      names.add(s.getMetadata().getName());
      GenericKubernetesResource written =
          api().resource(s).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
      checkCounters(s, written);
    }
    for (GenericKubernetesResource r : existing) {
      if (!names.contains(r.getMetadata().getName())) {
        api().withName(r.getMetadata().getName()).delete();
      }
    }
    generation = next;
    lastPublished = desired;
    LOG.info(
        "node {}: published {} device(s) and {} counter set(s) of {} in {} ResourceSlice(s), pool"
            + " generation {}",
        node,
        deviceCount,
        counterSetCount,
        driver,
        slices.size(),
        next);
    return true;
  }

  /** Forgets what was published, so the next call writes again. */
  public synchronized void invalidate() {
    lastPublished = null;
  }

  /** The node's slices of this driver on the server. */
  public List<GenericKubernetesResource> list() {
    return api()
        .withField("spec.nodeName", node)
        .withField("spec.driver", driver)
        .list()
        .getItems();
  }

  private io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      api() {
    return client.genericKubernetesResources(version.apiVersion(), "ResourceSlice");
  }

  private static long poolGeneration(GenericKubernetesResource r) {
    return JSON.valueToTree(r).path("spec").path("pool").path("generation").asLong(0);
  }

  private static List<JsonNode> specs(List<GenericKubernetesResource> slices) {
    List<JsonNode> out = new ArrayList<>();
    for (GenericKubernetesResource s : slices) {
      out.add(JSON.valueToTree(s.getAdditionalProperties().get("spec")));
    }
    return out;
  }

  private void checkCounters(GenericKubernetesResource sent, GenericKubernetesResource written) {
    JsonNode want = JSON.valueToTree(sent).path("spec").path("sharedCounters");
    if (want.isMissingNode() || want.isEmpty()) {
      return;
    }
    JsonNode got = JSON.valueToTree(written).path("spec").path("sharedCounters");
    if (got.isMissingNode() || got.isEmpty() || !Objects.equals(want.size(), got.size())) {
      throw new CountersDroppedException(
          "the API server dropped the shared counters of ResourceSlice "
              + sent.getMetadata().getName()
              + ": its DRAPartitionableDevices feature gate is off (beta and on by default from"
              + " Kubernetes 1.36; on 1.34 and 1.35 enable it on kube-apiserver and"
              + " kube-scheduler)");
    }
  }

  /** The server does not keep shared counters: partitionable devices cannot be published. */
  public static final class CountersDroppedException extends RuntimeException {
    CountersDroppedException(String message) {
      super(message);
    }
  }
}
