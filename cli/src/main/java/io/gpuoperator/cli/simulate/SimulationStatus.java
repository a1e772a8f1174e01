package io.gpuoperator.cli.simulate;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.common.OperandStatus;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec.Workload;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.gpuoperator.operator.upgrade.UpgradeSettings;
import io.gpuoperator.operator.upgrade.UpgradeState;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A snapshot of the simulated cluster: the ClusterPolicy's state and, per node, its GPU product
 * label, GPU resources and how many of the operator's pods on it are ready. What ready means for a
 * GPU node depends on its workload ({@code nvidia.com/gpu.workload.config}, else the policy's
 * {@code sandboxWorkloads.defaultWorkload}, as the operator reads it: {@link NodeLabelRules}):
 * containers need the product label and {@code nvidia.com/gpu}; a {@code vm-passthrough} node one
 * passthrough resource per GPU ({@code nvidia.com/<PCI device name>}); a {@code vm-vgpu} node at
 * least one vGPU resource.
 *
 * @param policyState the ClusterPolicy's status.state, or null before the operator wrote one
 * @param notReady why the policy is not ready (its operands that are not), empty when ready
 */
public record SimulationStatus(String policyState, List<String> notReady, List<NodeRow> nodes) {
  public static final String GPU_RESOURCE = "nvidia.com/gpu";
  public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";
  public static final String PRODUCT_LABEL = "nvidia.com/gpu.product";

  /**
   * One node.
   *
   * @param gpus GPUs the node's hardware has
   * @param product its {@code nvidia.com/gpu.product} label, null when unlabelled
   * @param resources allocatable {@code nvidia.com/gpu} and {@code nvidia.com/mig-*}, by name
   * @param operandsReady the operands' pods (of DaemonSets in the operator namespace) on the node
   *     that are ready
   * @param operands the operands' pods on the node
   * @param nodeReady the Node's Ready condition (True, False, Unknown)
   * @param driverSettled whether the operator is done with the node's driver: where the policy's
   *     driver auto-upgrade tracks nodes, its upgrade state is {@code upgrade-done} (the operator's
   *     last node write of a rollout, after the node's validator is ready); always true elsewhere
   *     (VM nodes run no driver of the policy's)
   * @param workload what the node runs (container for nodes without GPUs)
   * @param passthroughResource the resource its GPUs are passed through as ({@code nvidia.com/<PCI
   *     device name>}), null for a node running containers
   */
  public record NodeRow(
      String name,
      int gpus,
      String product,
      Map<String, Long> resources,
      int operandsReady,
      int operands,
      String nodeReady,
      boolean driverSettled,
      Workload workload,
      String passthroughResource) {

    /** Allocatable of its passthrough resource, 0 when absent. */
    public long passthroughAllocatable() {
      return passthroughResource == null ? 0 : resources.getOrDefault(passthroughResource, 0L);
    }

    /**
     * Allocatable vGPUs: its {@code nvidia.com/} resources other than GPUs, MIG and passthrough.
     */
    public long vgpuAllocatable() {
      return resources.entrySet().stream()
          .filter(e -> e.getKey().startsWith(KubevirtResourceNames.NAMESPACE))
          .filter(e -> !e.getKey().equals(GPU_RESOURCE))
          .filter(e -> !e.getKey().startsWith(MIG_RESOURCE_PREFIX))
          .filter(e -> !e.getKey().equals(passthroughResource))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }

    /** Allocatable {@code nvidia.com/gpu}, 0 when absent. */
    public long gpuAllocatable() {
      return resources.getOrDefault(GPU_RESOURCE, 0L);
    }

    /**
     * Whether the node advertises its GPUs for its workload: for containers {@code nvidia.com/gpu}
     * a positive multiple of the GPU count (time-slicing multiplies it), or MIG resources; for
     * {@code vm-passthrough} its passthrough resource equal to the GPU count; for {@code vm-vgpu}
     * at least one vGPU. Nodes without GPUs trivially do.
     */
    public boolean advertisesGpus() {
      if (gpus == 0) {
        return true;
      }
      if (workload == Workload.VM_PASSTHROUGH) {
        return passthroughAllocatable() == gpus;
      }
      if (workload == Workload.VM_VGPU) {
        return vgpuAllocatable() > 0;
      }
      long n = gpuAllocatable();
      boolean mig =
          resources.entrySet().stream()
              .anyMatch(e -> e.getKey().startsWith(MIG_RESOURCE_PREFIX) && e.getValue() > 0);
      return (n >= gpus && n % gpus == 0) || mig;
    }

    /**
     * Labelled with a product exactly when it has GPUs and runs containers (on a VM node no feature
     * discovery runs, so it has no product label to need).
     */
    public boolean labelledCorrectly() {
      if (gpus > 0 && workload != Workload.CONTAINER) {
        return true;
      }
      return (gpus > 0) == (product != null);
    }

    /** What the node lacks for its workload, one sentence; null when it advertises its GPUs. */
    String advertisingGap() {
      if (advertisesGpus()) {
        return null;
      }
      return switch (workload) {
        case CONTAINER ->
            "node " + name + " has " + gpus + " GPUs but advertises " + resourcesText();
        case VM_PASSTHROUGH ->
            "node "
                + name
                + " (vm-passthrough) has "
                + gpus
                + " GPUs but advertises "
                + passthroughAllocatable()
                + " "
                + passthroughResource
                + " for passthrough (allocatable: "
                + resourcesText()
                + ")";
        case VM_VGPU ->
            "node "
                + name
                + " (vm-vgpu) advertises no vGPU (nvidia.com/<vGPU type>; allocatable: "
                + resourcesText()
                + ")";
      };
    }

    /** The resources as {@code name=n} pairs, {@code -} for none. */
    public String resourcesText() {
      if (resources.isEmpty()) {
        return "-";
      }
      List<String> out = new ArrayList<>();
      resources.forEach((k, v) -> out.add(k + "=" + v));
      return String.join(",", out);
    }
  }

  /**
   * Ready: the ClusterPolicy is ready, every container node is labelled with a product exactly when
   * it has GPUs, every GPU node advertises them as its workload needs, and the operator is done
   * with every node's driver (so a ready cluster is one the operator has stopped writing to).
   */
  public boolean ready() {
    return "ready".equals(policyState)
        && nodes.stream()
            .allMatch(n -> n.labelledCorrectly() && n.advertisesGpus() && n.driverSettled());
  }

  /** Why the cluster is not ready yet, for the timeout message; empty when ready. */
  public List<String> reasons() {
    List<String> out = new ArrayList<>();
    if (!"ready".equals(policyState)) {
      out.add(
          "ClusterPolicy state is "
              + (policyState == null ? "not reported yet" : policyState)
              + (notReady.isEmpty() ? "" : " (" + String.join("; ", notReady) + ")"));
    }
    for (NodeRow n : nodes) {
      if (!n.labelledCorrectly()) {
        out.add(
            "node "
                + n.name()
                + (n.gpus() > 0
                    ? " has no " + PRODUCT_LABEL + " label"
                    : " has no GPU but is labelled " + n.product()));
      }
      if (!n.advertisesGpus()) {
        out.add(n.advertisingGap());
      }
      if (!n.driverSettled()) {
        out.add("node " + n.name() + " has no " + UpgradeKeys.STATE + "=upgrade-done label yet");
      }
    }
    return out;
  }

  /** Reads nodes, the operator's pods and the ClusterPolicy from the API server (three reads). */
  public static SimulationStatus read(
      KubernetesClient client, List<NodeDescription> nodes, String namespace, String policy) {
    return of(
        nodes,
        client.nodes().list().getItems(),
        client.pods().inNamespace(namespace).list().getItems(),
        client.resources(ClusterPolicy.class).withName(policy).get());
  }

  /**
   * The status from what was read (or cached): the Nodes, the pods of the operator's namespace, the
   * ClusterPolicy (null when absent).
   */
  public static SimulationStatus of(
      List<NodeDescription> nodes,
      Collection<Node> nodeObjects,
      Collection<Pod> namespacePods,
      ClusterPolicy cp) {
    Map<String, Node> byName = new HashMap<>();
    for (Node n : nodeObjects) {
      byName.put(n.getMetadata().getName(), n);
    }
    Map<String, int[]> pods = new HashMap<>();
    for (Pod p : namespacePods) {
      String node = p.getSpec().getNodeName();
      if (node == null || !ownedByDaemonSet(p)) {
        continue; // e.g. the validator's short-lived cuda workload pod is no operand
      }
      int[] c = pods.computeIfAbsent(node, k -> new int[2]);
      c[1]++;
      if (podReady(p)) {
        c[0]++;
      }
    }
    // The operator tracks each GPU node's driver (upgrade state labels) when auto-upgrade is on.
    boolean upgradesTracked = cp != null && UpgradeSettings.of(cp).autoUpgrade();
    List<NodeRow> rows = new ArrayList<>();
    for (NodeDescription d : nodes) {
      Node n = byName.get(d.name());
      Map<String, Long> resources = new TreeMap<>();
      String product = null;
      String ready = null;
      boolean settled = !upgradesTracked || d.gpus() == 0;
      Workload workload =
          n == null || d.gpus() == 0 ? Workload.CONTAINER : NodeLabelRules.workload(n, cp);
      boolean vm = workload != Workload.CONTAINER;
      settled |= vm;
      if (n != null) {
        Map<String, String> labels = n.getMetadata().getLabels();
        product = labels == null ? null : labels.get(PRODUCT_LABEL);
        settled |=
            labels != null
                && UpgradeState.UPGRADE_DONE.label().equals(labels.get(UpgradeKeys.STATE));
        Map<String, Quantity> alloc =
            n.getStatus() == null || n.getStatus().getAllocatable() == null
                ? Map.of()
                : n.getStatus().getAllocatable();
        alloc.forEach(
            (k, v) -> {
              if (k.equals(GPU_RESOURCE)
                  || k.startsWith(MIG_RESOURCE_PREFIX)
                  || (vm && k.startsWith(KubevirtResourceNames.NAMESPACE))) {
                resources.put(k, Quantity.getAmountInBytes(v).longValue());
              }
            });
        if (n.getStatus() != null && n.getStatus().getConditions() != null) {
          ready =
              n.getStatus().getConditions().stream()
                  .filter(c -> "Ready".equals(c.getType()))
                  .map(c -> c.getStatus())
                  .findFirst()
                  .orElse(null);
        }
      }
      int[] c = pods.getOrDefault(d.name(), new int[2]);
      String passthrough = vm ? KubevirtResourceNames.passthrough(d.profile()) : null;
      rows.add(
          new NodeRow(
              d.name(),
              d.gpus(),
              product,
              resources,
              c[0],
              c[1],
              ready,
              settled,
              workload,
              passthrough));
    }
    String state = null;
    List<String> notReady = new ArrayList<>();
    if (cp != null && cp.getStatus() != null) {
      state = cp.getStatus().state == null ? null : cp.getStatus().state.value();
      if (cp.getStatus().operands != null) {
        for (OperandStatus o : cp.getStatus().operands) {
          if (o.state != null && !"ready".equals(o.state.value())) {
            notReady.add(o.name + " " + (o.reason != null ? o.reason : o.state.value()));
          }
        }
      }
      if (notReady.isEmpty() && !"ready".equals(state) && cp.getStatus().conditions != null) {
        // No operand to blame (e.g. the policy failed to apply): the Ready condition says why.
        cp.getStatus().conditions.stream()
            .filter(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()))
            .filter(c -> c.getMessage() != null && !c.getMessage().isBlank())
            .forEach(c -> notReady.add(c.getReason() + ": " + c.getMessage()));
      }
    }
    return new SimulationStatus(state, List.copyOf(notReady), List.copyOf(rows));
  }

  static boolean ownedByDaemonSet(Pod p) {
    return p.getMetadata().getOwnerReferences() != null
        && p.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> "DaemonSet".equals(o.getKind()));
  }

  static boolean podReady(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The final table: node, product, GPUs, allocatable, operands ready. */
  public List<String> table() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"NODE", "PRODUCT", "GPUS", "ALLOCATABLE", "OPERANDS READY", "READY"});
    for (NodeRow n : nodes) {
      rows.add(
          new String[] {
            n.name(),
            n.product() == null ? "-" : n.product(),
            Integer.toString(n.gpus()),
            n.resourcesText(),
            n.operandsReady() + "/" + n.operands(),
            n.nodeReady() == null ? "-" : n.nodeReady()
          });
    }
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i == r.length - 1 ? r[i] : String.format("%-" + (width[i] + 2) + "s", r[i]));
      }
      out.add(line.toString().stripTrailing());
    }
    return out;
  }
}
