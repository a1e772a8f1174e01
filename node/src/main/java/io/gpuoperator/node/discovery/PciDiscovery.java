package io.gpuoperator.node.discovery;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.node.gpu.PciDevices;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU node discovery for clusters without Node Feature Discovery: scans the node's PCI devices and
 * writes {@link #LABEL} ({@code true} when an NVIDIA display or 3D controller is there, else {@code
 * false}), the one fact the operator needs to treat a node as a GPU node where no NFD label says
 * so. The label is written alone, by a merge patch, so feature discovery's managed-label set never
 * includes it (and never removes it).
 */
public final class PciDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(PciDiscovery.class);

  /** The label this discovery writes; the operator reads it on nodes without NFD labels. */
  public static final String LABEL = "nvidia.com/gpu.pci.present";

  private PciDiscovery() {}

  /** The label value for these devices. */
  public static String value(List<PciDevices.Device> devices) {
    return Boolean.toString(PciDevices.hasNvidiaGpu(devices));
  }

  /**
   * Scans {@code sysfsRoot} and labels the node; returns the value written. Writes nothing when the
   * node already carries that value.
   */
  public static String label(KubernetesClient client, String nodeName, Path sysfsRoot)
      throws IOException {
    List<PciDevices.Device> devices = PciDevices.scan(sysfsRoot);
    return label(
        client,
        nodeName,
        value(devices),
        devices.size()
            + " PCI devices, "
            + devices.stream().filter(PciDevices.Device::isNvidiaGpu).count()
            + " NVIDIA GPUs");
  }

  /**
   * Labels the node with {@code value} ({@code why} says where it came from, for the log); writes
   * nothing when the node already carries it.
   */
  public static String label(KubernetesClient client, String nodeName, String value, String why)
      throws IOException {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IOException("Node/" + nodeName + " does not exist");
    }
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels != null && value.equals(labels.get(LABEL))) {
      return value;
    }
    client
        .nodes()
        .resource(PatchTarget.of(Node::new, null, nodeName))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + LABEL + "\":\"" + value + "\"}}}");
    LOG.info("kind=Node name={}: {}={} ({})", nodeName, LABEL, value, why);
    return value;
  }
}
