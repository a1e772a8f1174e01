package io.gpuoperator.sim.kubelet;

import static io.gpuoperator.sim.kubelet.KubeletConstants.*;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.NodeSystemInfoBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.gpuoperator.sim.controlplane.K8sVersions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Builds the Node a simulated kubelet registers, from its {@link NodeDescription}: NFD-style labels
 * (PCI, OS release, kernel), capacity, addresses, nodeInfo and conditions. No I/O.
 */
public final class NodeModel {
  private NodeModel() {}

  /** Labels a kubelet (plus NFD, where the node has it) would put on this node. */
  public static Map<String, String> labels(NodeDescription d) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(LABEL_HOSTNAME, d.name());
    labels.put(LABEL_OS, "linux");
    labels.put(LABEL_ARCH, "amd64");
    labels.put(LABEL_BETA_OS, "linux");
    labels.put(LABEL_BETA_ARCH, "amd64");
    if (d.nfd()) {
      nfdLabels(d, labels);
    }
    labels.putAll(d.labels());
    return labels;
  }

  /** What NFD's PCI, CPU, OS and kernel sources would label the node with. */
  private static void nfdLabels(NodeDescription d, Map<String, String> labels) {
    labels.put(LABEL_PCI_VIRTIO, "true");
    if (d.hasGpus()) {
      labels.put(LABEL_PCI_NVIDIA, "true");
      labels.put(LABEL_PCI_NVIDIA_3D, "true");
    }
    labels.put(LABEL_CPU_VENDOR, "Intel");
    labels.put(LABEL_OS_ID, d.osId());
    labels.put(LABEL_OS_VERSION_ID, d.osVersionId());
    String[] os = d.osVersionId().split("\\.");
    labels.put(LABEL_OS_VERSION_MAJOR, os[0]);
    if (os.length > 1) {
      labels.put(LABEL_OS_VERSION_MINOR, os[1]);
    }
    labels.put(LABEL_KERNEL_FULL, d.kernel());
    // 5.15.0-105-generic -> major 5, minor 15, revision 0
    String[] k = d.kernel().split("[.-]");
    labels.put(LABEL_KERNEL_MAJOR, k[0]);
    if (k.length > 1) {
      labels.put(LABEL_KERNEL_MINOR, k[1]);
    }
    if (k.length > 2) {
      labels.put(LABEL_KERNEL_REVISION, k[2]);
    }
  }

  /** The Node object to create, with the status it is registered with. */
  public static Node node(NodeDescription d, int index, Instant now) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(d.name())
        .withLabels(labels(d))
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withStatus(status(d, index, now, now))
        .build();
  }

  /** Node status: everything a kubelet reports, with Ready=True and no pressure. */
  public static NodeStatus status(NodeDescription d, int index, Instant heartbeat, Instant since) {
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity(d.cpu()));
    capacity.put("memory", new Quantity(d.memory()));
    capacity.put("pods", new Quantity(Integer.toString(d.maxPods())));
    capacity.put("ephemeral-storage", new Quantity("500Gi"));
    return new NodeStatusBuilder()
        .withCapacity(capacity)
        .withAllocatable(new LinkedHashMap<>(capacity))
        .withConditions(conditions(heartbeat, since))
        .withAddresses(
            new NodeAddress(nodeIp(index), "InternalIP"), new NodeAddress(d.name(), "Hostname"))
        .withNewDaemonEndpoints()
        .withNewKubeletEndpoint()
        .withPort(10250)
        .endKubeletEndpoint()
        .endDaemonEndpoints()
        .withNodeInfo(
            new NodeSystemInfoBuilder()
                .withMachineID(uuid(d.name(), "machine"))
                .withSystemUUID(uuid(d.name(), "system"))
                .withBootID(uuid(d.name(), "boot"))
                .withKernelVersion(d.kernel())
                .withOsImage(osImage(d))
                .withContainerRuntimeVersion(d.containerRuntimeVersion())
                // The kubelet of the control plane's release; kubeProxyVersion is deprecated
                // (1.31) and left empty, as current kubelets do.
                .withKubeletVersion(K8sVersions.KUBERNETES)
                .withOperatingSystem("linux")
                .withArchitecture("amd64")
                .build())
        .build();
  }

  /** Ready=True plus the three pressure conditions and PID pressure, all False. */
  public static List<NodeCondition> conditions(Instant heartbeat, Instant since) {
    return List.of(
        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", heartbeat, since),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", heartbeat, since),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", heartbeat, since),
        condition("Ready", "True", "KubeletReady", heartbeat, since));
  }

  private static NodeCondition condition(
      String type, String status, String reason, Instant heartbeat, Instant since) {
    return new NodeConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(
            type.equals("Ready") ? "kubelet is posting ready status" : "kubelet has no " + type)
        .withLastHeartbeatTime(rfc3339(heartbeat))
        .withLastTransitionTime(rfc3339(since))
        .build();
  }

  static String osImage(NodeDescription d) {
    return switch (d.osId()) {
      case "ubuntu" -> "Ubuntu " + d.osVersionId() + " LTS";
      case "rhel" -> "Red Hat Enterprise Linux " + d.osVersionId();
      case "rocky" -> "Rocky Linux " + d.osVersionId();
      default -> d.osId() + " " + d.osVersionId();
    };
  }

  /** A stable per-node internal IP: 172.18.x.y from the node's index. */
  public static String nodeIp(int index) {
    return "172.18." + ((index + 2) / 250) + "." + ((index + 2) % 250);
  }

  /** Pod IPs of a node come from its own /24: 10.244.index.x. */
  public static String podIp(int nodeIndex, int podIndex) {
    return "10.244." + (nodeIndex % 256) + "." + (2 + podIndex % 250);
  }

  static String uuid(String name, String kind) {
    return UUID.nameUUIDFromBytes(
            (kind + "/" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .toString();
  }

  /** Kubernetes time format: RFC 3339 in UTC, whole seconds. */
  public static String rfc3339(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
