package io.gpuoperator.operator.driver;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.DriverPoolStatus;
import io.gpuoperator.api.common.EnvVar;
import io.gpuoperator.api.common.NodeRequirement;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import io.gpuoperator.operator.compat.DriverCompatibility;
import io.gpuoperator.operator.labels.Labels;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the operator checks about a driver's nodes before it rolls the driver out: each node pool
 * against the compatibility matrix (a refused pool keeps the driver it has, the others proceed),
 * and each node against the prerequisites of the GPUDirect features the driver enables (reported,
 * never silently skipped). Pure.
 */
public final class DriverChecks {
  /** NFD's label for an NVIDIA (Mellanox) network adapter, PCI vendor 15b3. */
  public static final String NIC_PRESENT = Labels.NFD_PREFIX + "pci-15b3.present";

  /** NFD's label for such an adapter with SR-IOV virtual functions. */
  public static final String NIC_SRIOV = Labels.NFD_PREFIX + "pci-15b3.sriov.capable";

  /** The validator's CUDA workload image when validator.cuda does not name one. */
  public static final String CUDA_DEFAULT =
      io.gpuoperator.api.OperandImages.nvidiaDefault(
          io.gpuoperator.api.OperandImages.CUDA_WORKLOAD);

  /** The driver image when the policy names none: the operator's override, else the default. */
  public static String defaultImage(io.gpuoperator.operator.config.OperatorConfig config) {
    String override = config.image(io.gpuoperator.operator.operand.OperandNames.DRIVER);
    return override != null
        ? override
        : io.gpuoperator.operator.operand.Operands.defaultImage(
            io.gpuoperator.operator.operand.OperandNames.DRIVER, config.agents());
  }

  /** At most this many nodes are listed in status.gpuDirect. */
  static final int MAX_LISTED = 20;

  private DriverChecks() {}

  /**
   * What a driver is to run.
   *
   * @param version the driver version, branch or digest (from the image when not set)
   * @param kernelModuleType auto, open or proprietary
   * @param cudaImage the validator's CUDA workload image
   * @param rdma driver.rdma.enabled
   * @param sriov whether GPUDirect RDMA reaches virtual machines (sandbox workloads), which takes
   *     SR-IOV virtual functions of the adapter
   */
  public record Settings(
      String version,
      String kernelModuleType,
      boolean precompiled,
      String cudaImage,
      boolean rdma,
      boolean sriov,
      boolean gds,
      boolean gdrcopy) {

    /** The ClusterPolicy's driver. */
    public static Settings of(ClusterPolicySpec spec, String defaultImage, String cudaDefault) {
      DriverSpec d = spec.driver == null ? new DriverSpec() : spec.driver;
      return of(
          DriverChecks.version(d, defaultImage),
          d.kernelModuleType,
          d.usePrecompiled,
          d.rdma,
          spec.gds,
          spec.gdrcopy,
          spec,
          cudaDefault);
    }

    /** An NVIDIADriver (the policy gives the validator and sandbox settings). */
    public static Settings of(
        NVIDIADriverSpec d, ClusterPolicySpec policy, String defaultImage, String cudaDefault) {
      return of(
          DriverChecks.version(d, defaultImage),
          d.kernelModuleType,
          d.usePrecompiled,
          d.rdma,
          d.gds,
          d.gdrcopy,
          policy,
          cudaDefault);
    }

    /** The fields both driver resources have, and the policy's validator and sandbox settings. */
    private static Settings of(
        String version,
        DriverSpec.KernelModuleType kernelModuleType,
        Boolean usePrecompiled,
        DriverSpec.Rdma rdma,
        ComponentSpec gds,
        ComponentSpec gdrcopy,
        ClusterPolicySpec policy,
        String cudaDefault) {
      boolean rdmaOn = rdma != null && Boolean.TRUE.equals(rdma.enabled);
      return new Settings(
          version,
          moduleType(kernelModuleType),
          Boolean.TRUE.equals(usePrecompiled),
          DriverChecks.cudaImage(policy, cudaDefault),
          rdmaOn,
          rdmaOn && sandbox(policy),
          gds != null && Boolean.TRUE.equals(gds.enabled),
          gdrcopy != null && Boolean.TRUE.equals(gdrcopy.enabled));
    }

    DriverCompatibility.DriverChoice choice(DriverPool pool) {
      return new DriverCompatibility.DriverChoice(
          version, kernelModuleType, precompiled, pool.osTag(), pool.kernel(), cudaImage);
    }
  }

  /**
   * The outcome for one driver.
   *
   * @param pools every pool of the driver's nodes
   * @param refused why each refused pool may not roll out, by pool name
   * @param unmet nodes lacking a GPUDirect prerequisite (all of them; status lists the first 20)
   */
  public record Result(
      List<DriverPool> pools, Map<String, List<String>> refused, List<NodeRequirement> unmet) {

    /** The pools for status, refused ones with their reasons. */
    public List<DriverPoolStatus> poolStatus() {
      List<DriverPoolStatus> out = new ArrayList<>();
      for (DriverPool p : pools) {
        DriverPoolStatus s = new DriverPoolStatus();
        s.name = p.name();
        List<String> reasons = refused.get(p.name());
        s.state = reasons == null ? "ready" : "refused";
        s.reason = reasons == null ? null : String.join("; ", reasons);
        out.add(s);
      }
      return out;
    }

    /** The nodes of refused pools. */
    public Set<String> refusedNodes() {
      Set<String> out = new TreeSet<>();
      pools.stream().filter(p -> refused.containsKey(p.name())).forEach(p -> out.addAll(p.nodes()));
      return out;
    }

    /**
     * Whether a rendered driver DaemonSet must stay as it is: it runs on a node of a refused pool
     * (its node selector matches the node's labels).
     */
    public boolean freezes(DaemonSet ds, Collection<Node> nodes) {
      Set<String> refusedNodes = refusedNodes();
      if (refusedNodes.isEmpty()) {
        return false;
      }
      Map<String, String> selector = ds.getSpec().getTemplate().getSpec().getNodeSelector();
      return nodes.stream()
          .filter(n -> refusedNodes.contains(n.getMetadata().getName()))
          .anyMatch(n -> selects(selector, n));
    }

    /** One line for a condition and an Event: every refused pool and why; null when none is. */
    public String refusedMessage() {
      if (refused.isEmpty()) {
        return null;
      }
      List<String> parts = new ArrayList<>();
      refused.forEach((pool, reasons) -> parts.add(pool + ": " + String.join("; ", reasons)));
      return "Driver refused for node pool(s) "
          + String.join(" | ", parts)
          + "; their nodes keep the driver they run, the other pools proceed";
    }

    /** The first {@link #MAX_LISTED} unmet prerequisites, or null when there are none. */
    public List<NodeRequirement> listedUnmet() {
      return unmet.isEmpty()
          ? null
          : List.copyOf(unmet.subList(0, Math.min(MAX_LISTED, unmet.size())));
    }
  }

  /**
   * Checks a driver against its GPU nodes.
   *
   * @param requireOs whether nodes without NFD os_release labels get no driver (one DaemonSet per
   *     OS), so their pool is reported refused
   */
  public static Result check(
      Settings settings, Collection<Node> gpuNodes, DriverCompatibility matrix, boolean requireOs) {
    List<DriverPool> pools = DriverPool.of(gpuNodes, settings.precompiled());
    Map<String, Map<String, String>> labels = new LinkedHashMap<>();
    gpuNodes.forEach(n -> labels.put(n.getMetadata().getName(), labelsOf(n)));
    Map<String, List<String>> refused = new LinkedHashMap<>();
    for (DriverPool pool : pools) {
      Map<String, Map<String, String>> mine = new LinkedHashMap<>();
      pool.nodes().forEach(n -> mine.put(n, labels.get(n)));
      List<String> reasons =
          matrix.check(settings.choice(pool), mine).stream()
              .map(DriverCompatibility.Problem::toString)
              .toList();
      if (requireOs && pool.osTag() == null) {
        reasons =
            List.of(
                "no NFD os_release labels ("
                    + Labels.NFD_OS_ID
                    + ", "
                    + Labels.NFD_OS_VERSION_ID
                    + "), so no driver image tag (nodes "
                    + String.join(", ", pool.nodes().subList(0, Math.min(5, pool.nodes().size())))
                    + (pool.nodes().size() > 5 ? " and " + (pool.nodes().size() - 5) + " more" : "")
                    + ")");
      }
      if (!reasons.isEmpty()) {
        refused.put(pool.name(), reasons);
      }
    }
    List<NodeRequirement> unmet = new ArrayList<>();
    if (settings.rdma()) {
      for (var e : new java.util.TreeMap<>(labels).entrySet()) {
        if (!Labels.TRUE.equals(e.getValue().get(NIC_PRESENT))) {
          unmet.add(
              requirement(
                  e.getKey(),
                  "rdma",
                  "an NVIDIA (Mellanox) network adapter: " + NIC_PRESENT + " is not true"));
        } else if (settings.sriov() && !Labels.TRUE.equals(e.getValue().get(NIC_SRIOV))) {
          unmet.add(
              requirement(
                  e.getKey(),
                  "rdma",
                  "SR-IOV on the network adapter, which GPUDirect RDMA into virtual machines"
                      + " (sandboxWorkloads) takes: "
                      + NIC_SRIOV
                      + " is not true"));
        }
      }
    }
    return new Result(pools, refused, unmet);
  }

  private static NodeRequirement requirement(String node, String feature, String missing) {
    NodeRequirement r = new NodeRequirement();
    r.node = node;
    r.feature = feature;
    r.missing = missing;
    return r;
  }

  /** Whether a node's labels include every entry of a node selector (an empty one selects all). */
  static boolean selects(Map<String, String> selector, Node node) {
    Map<String, String> l = labelsOf(node);
    return selector == null
        || selector.entrySet().stream().allMatch(e -> e.getValue().equals(l.get(e.getKey())));
  }

  private static Map<String, String> labelsOf(Node n) {
    Map<String, String> l = n.getMetadata().getLabels();
    return l == null ? Map.of() : l;
  }

  /** driver.version, else the tag of driver.image, else the tag of the default image. */
  static String version(ComponentSpec d, String defaultImage) {
    if (d.version != null && !d.version.isBlank()) {
      return d.version.trim();
    }
    String tag = tag(d.image);
    return tag != null ? tag : tag(defaultImage);
  }

  /** The tag or digest of an image reference, or null. */
  static String tag(String image) {
    if (image == null || image.isBlank()) {
      return null;
    }
    int at = image.indexOf('@');
    if (at >= 0) {
      return image.substring(at + 1);
    }
    int colon = image.lastIndexOf(':');
    return colon > image.lastIndexOf('/') ? image.substring(colon + 1) : null;
  }

  private static String moduleType(DriverSpec.KernelModuleType t) {
    return t == null ? "auto" : t.name().toLowerCase(Locale.ROOT);
  }

  private static boolean sandbox(ClusterPolicySpec spec) {
    return spec.sandboxWorkloads != null && Boolean.TRUE.equals(spec.sandboxWorkloads.enabled);
  }

  /** validator.cuda's CUDA_WORKLOAD_IMAGE, else the default workload image. */
  private static String cudaImage(ClusterPolicySpec spec, String cudaDefault) {
    if (spec.validator != null && spec.validator.cuda != null && spec.validator.cuda.env != null) {
      for (EnvVar e : spec.validator.cuda.env) {
        if ("CUDA_WORKLOAD_IMAGE".equals(e.name) && e.value != null && !e.value.isBlank()) {
          return e.value.trim();
        }
      }
    }
    return cudaDefault;
  }
}
