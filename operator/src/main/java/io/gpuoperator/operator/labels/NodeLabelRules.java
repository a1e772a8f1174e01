package io.gpuoperator.operator.labels;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1.NodeTaintSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.spec.Section;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The pure rules for operator-owned node labels, annotations and the GPU taint: given a Node and
 * the policy, the {@link NodeLabelChange} that makes it what the original's node-labelling
 * controller makes it (operand-contracts 5.2), plus our GPU taint. No client, no I/O.
 *
 * <p>The original's steps, in order: {@code gpu.present} follows NFD's NVIDIA PCI labels ({@code
 * true}; {@code false} rather than removal once they are gone; never set on a node that never had
 * GPUs); a node that is not a GPU node loses every deploy label; otherwise the deploy labels of its
 * workload type are added where absent or empty (a user's {@code false} or a component's pause
 * value is kept), the other deploy labels removed (except {@code mig-manager} in container mode,
 * which is never swept), all of them when {@code gpu.deploy.operands=false}; {@code mig-manager} is
 * added on MIG-capable container nodes; {@code mig.config=all-disabled} is set on MIG-capable nodes
 * without one when the MIG manager is enabled and its default is {@code all-disabled}. The
 * driver-upgrade annotation marks GPU nodes whose driver the upgrade controller manages.
 *
 * <p>Our additions: the GPU taint, only where {@code spec.nodeTaint} asks for one (the original
 * taints nothing), on GPU nodes; the operator records the taint it added in the node annotation
 * {@link Labels#TAINT_OWNER} and removes no other (see {@link #change}); and the DRA driver ({@code
 * spec.draDriver}, the {@code dra-driver} deploy label on container nodes), which never shares a
 * node with the device plugin. With the device plugin off, its deploy label is dropped where the
 * DRA driver's is added, so turning the device plugin on later finds those nodes serving DRA. With
 * both on, a node serves the one whose label is not {@code false}; a node with neither set to
 * {@code false} is an allocator conflict ({@link #allocatorConflict}): both of its labels are left
 * exactly as they are, and the policy's status names it.
 */
public final class NodeLabelRules {

  private NodeLabelRules() {}

  /**
   * What the node carries of the operator's labels and taint once the change is applied.
   *
   * @param gpuNode whether the node is a GPU node ({@code gpu.present=true} after the change)
   * @param labels every operator-owned label the node has afterwards, with its value
   * @param taint the GPU taint the node carries afterwards, or null for none
   */
  public record Desired(boolean gpuNode, SortedMap<String, String> labels, Taint taint) {}

  /**
   * Whether the node has an NVIDIA PCI device: NFD says so (the original's only GPU test), or, on a
   * node without any NFD label, our PCI discovery's {@link Labels#PCI_PRESENT} does (clusters
   * without NFD). Where NFD runs its labels alone decide.
   */
  public static boolean isGpuNode(Node node) {
    Map<String, String> labels = labels(node);
    for (String key : Labels.NFD_GPU_LABELS) {
      if (Labels.TRUE.equals(labels.get(key))) {
        return true;
      }
    }
    return Labels.TRUE.equals(labels.get(Labels.PCI_PRESENT)) && !hasNfdLabels(node);
  }

  /** Whether any Node Feature Discovery label is on the node. */
  public static boolean hasNfdLabels(Node node) {
    return labels(node).keySet().stream().anyMatch(k -> k.startsWith(Labels.NFD_PREFIX));
  }

  /**
   * Whether the node's GPUs support MIG: never on a vGPU host; else feature discovery's {@code
   * mig.capable} when present; else an A100, A30 or H100 product name (the original's fallback).
   */
  public static boolean isMigCapable(Node node) {
    Map<String, String> labels = labels(node);
    if (!blank(labels.get(Labels.VGPU_HOST_DRIVER_VERSION))) {
      return false;
    }
    if (labels.containsKey(Labels.MIG_CAPABLE)) {
      return Labels.TRUE.equals(labels.get(Labels.MIG_CAPABLE));
    }
    String product = labels.getOrDefault(Labels.GPU_PRODUCT, "").toUpperCase(Locale.ROOT);
    return Labels.MIG_CAPABLE_PRODUCTS.stream().anyMatch(product::contains);
  }

  /**
   * The workload type of a GPU node: the node's {@code nvidia.com/gpu.workload.config} when sandbox
   * workloads are enabled and the value is valid, else the policy's default workload; always
   * container when sandbox workloads are disabled.
   */
  public static SandboxWorkloadsSpec.Workload workload(Node node, ClusterPolicy policy) {
    SandboxWorkloadsSpec sandbox = spec(policy).sandboxWorkloads;
    if (!sandboxEnabled(policy)) {
      return SandboxWorkloadsSpec.Workload.CONTAINER;
    }
    var fallback =
        sandbox.defaultWorkload == null
            ? SandboxWorkloadsSpec.Workload.CONTAINER
            : sandbox.defaultWorkload;
    String value = labels(node).get(Labels.WORKLOAD_CONFIG);
    if (value == null) {
      return fallback;
    }
    return switch (value.trim()) {
      case "container" -> SandboxWorkloadsSpec.Workload.CONTAINER;
      case "vm-passthrough" -> SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH;
      case "vm-vgpu" -> SandboxWorkloadsSpec.Workload.VM_VGPU;
      default -> fallback;
    };
  }

  /** The deploy-label suffixes (operand names) a GPU node of this workload type gets. */
  public static List<String> operandsFor(
      SandboxWorkloadsSpec.Workload workload, boolean migCapable, ClusterPolicy policy) {
    List<String> out = new ArrayList<>();
    switch (workload) {
      case CONTAINER -> {
        out.addAll(Labels.CONTAINER_OPERANDS);
        if (migCapable) {
          out.add(Labels.MIG_MANAGER);
        }
        ClusterPolicySpec spec = spec(policy);
        if (Section.DRA_DRIVER.enabled(spec)) {
          out.add(Labels.DRA_DRIVER);
          if (!Section.DEVICE_PLUGIN.enabled(spec)) {
            out.remove(Labels.DEVICE_PLUGIN);
          }
        }
      }
      case VM_PASSTHROUGH -> {
        SandboxWorkloadsSpec sandbox = spec(policy).sandboxWorkloads;
        boolean kata = sandbox != null && sandbox.mode == SandboxWorkloadsSpec.Mode.KATA;
        for (String operand : Labels.VM_PASSTHROUGH_OPERANDS) {
          out.add(
              kata && operand.equals("sandbox-device-plugin")
                  ? Labels.KATA_SANDBOX_DEVICE_PLUGIN
                  : operand);
        }
      }
      case VM_VGPU -> out.addAll(Labels.VM_VGPU_OPERANDS);
    }
    return out;
  }

  /**
   * Whether the policy would have both the device plugin and the DRA driver serve this node's GPUs:
   * both are enabled, it is a container GPU node whose operands are not switched off, and neither
   * of its two deploy labels says {@code false}. Nothing changes on such a node until one does (or
   * the policy drops one of the two).
   */
  public static boolean allocatorConflict(Node node, ClusterPolicy policy) {
    ClusterPolicySpec spec = spec(policy);
    if (!Section.DRA_DRIVER.enabled(spec) || !Section.DEVICE_PLUGIN.enabled(spec)) {
      return false;
    }
    Map<String, String> labels = labels(node);
    return isGpuNode(node)
        && workload(node, policy) == SandboxWorkloadsSpec.Workload.CONTAINER
        && !Labels.FALSE.equals(labels.get(Labels.DEPLOY_OPERANDS))
        && !Labels.FALSE.equals(labels.get(Labels.deploy(Labels.DEVICE_PLUGIN)))
        && !Labels.FALSE.equals(labels.get(Labels.deploy(Labels.DRA_DRIVER)));
  }

  /**
   * The GPU taint the policy asks for, or null: none unless {@code spec.nodeTaint} is given (as the
   * original, which taints nothing), and none with {@code spec.nodeTaint.enabled=false}.
   */
  public static Taint policyTaint(ClusterPolicy policy) {
    NodeTaintSpec t = spec(policy).nodeTaint;
    if (t == null || Boolean.FALSE.equals(t.enabled)) {
      return null;
    }
    String key = blank(t.key) ? NodeTaintSpec.DEFAULT_KEY : t.key;
    String value = t.value == null ? NodeTaintSpec.DEFAULT_VALUE : t.value;
    String effect = t.effect == null ? "NoSchedule" : effect(t.effect);
    return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
  }

  /**
   * The GPU taint of a GPU node with these labels: the policy's, except where the DRA driver serves
   * the node. Nothing adds a toleration to pods that claim devices through DRA (the API server's
   * ExtendedResourceToleration covers extended resources only), so claims written for NVIDIA's DRA
   * driver, whose nodes are not tainted, would never schedule there.
   */
  static Taint taint(Map<String, String> labels, ClusterPolicy policy) {
    return Labels.TRUE.equals(labels.get(Labels.deploy(Labels.DRA_DRIVER)))
        ? null
        : policyTaint(policy);
  }

  /**
   * The MIG layout the operator writes on MIG-capable nodes without one, or null: only {@code
   * all-disabled}, only with the MIG manager enabled, and only when {@code
   * migManager.config.default} is {@code all-disabled} (the CRD's default once {@code config} is
   * given).
   */
  public static String defaultMigConfig(ClusterPolicy policy) {
    var mm = spec(policy).migManager;
    if (mm == null || !mm.isEnabled(true) || mm.config == null) {
      return null;
    }
    String def =
        mm.config.defaultEntry == null
            ? Labels.MIG_CONFIG_ALL_DISABLED
            : mm.config.defaultEntry.trim();
    return Labels.MIG_CONFIG_ALL_DISABLED.equals(def) ? Labels.MIG_CONFIG_ALL_DISABLED : null;
  }

  /**
   * Whether the driver-upgrade annotation belongs on GPU nodes: the ClusterPolicy manages the
   * driver, with {@code driver.upgradePolicy.autoUpgrade}, and no sandbox workloads. Null when the
   * NVIDIADriver resources decide per node (the annotation is then left alone).
   */
  static Boolean driverUpgradeEnabled(ClusterPolicy policy) {
    DriverSpec d = spec(policy).driver;
    if (d != null && Boolean.TRUE.equals(d.useNvidiaDriverCRD)) {
      return null;
    }
    boolean enabled = d == null || d.isEnabled(true);
    boolean auto =
        d != null && d.upgradePolicy != null && Boolean.TRUE.equals(d.upgradePolicy.autoUpgrade);
    return enabled && auto && !sandboxEnabled(policy);
  }

  /** The node after the change: what the operator's labels and taint are then. */
  public static Desired desired(Node node, ClusterPolicy policy) {
    NodeLabelChange change = change(node, policy);
    Map<String, String> after = new HashMap<>(labels(node));
    after.putAll(change.labelsToSet());
    change.labelsToRemove().forEach(after::remove);
    SortedMap<String, String> owned = new TreeMap<>();
    after.forEach(
        (k, v) -> {
          if (k.equals(Labels.GPU_PRESENT) || k.equals(Labels.MIG_CONFIG) || isDeployKey(k)) {
            owned.put(k, v);
          }
        });
    boolean gpu = Labels.TRUE.equals(after.get(Labels.GPU_PRESENT));
    return new Desired(gpu, owned, gpu ? taint(after, policy) : null);
  }

  /** The change that makes the node match the policy; {@link NodeLabelChange#isEmpty()} if none. */
  public static NodeLabelChange change(Node node, ClusterPolicy policy) {
    Map<String, String> current = labels(node);
    SortedMap<String, String> set = new TreeMap<>();
    Set<String> remove = new TreeSet<>();

    // 1. gpu.present follows NFD (or our PCI discovery without NFD): true, then false (not
    // removed) once the GPUs are gone.
    boolean pci = isGpuNode(node);
    String present = current.get(Labels.GPU_PRESENT);
    if (pci && !Labels.TRUE.equals(present)) {
      set.put(Labels.GPU_PRESENT, Labels.TRUE);
    } else if (!pci && Labels.TRUE.equals(present)) {
      set.put(Labels.GPU_PRESENT, Labels.FALSE);
    }
    boolean gpu = pci;
    Set<String> deployKeys = new TreeSet<>();
    current.keySet().stream().filter(NodeLabelRules::isDeployKey).forEach(deployKeys::add);

    if (!gpu) {
      // 2. Not a GPU node (any more): every deploy label goes; mig.config is left alone.
      remove.addAll(deployKeys);
    } else {
      var workload = workload(node, policy);
      boolean container = workload == SandboxWorkloadsSpec.Workload.CONTAINER;
      boolean migCapable = isMigCapable(node);
      if (Labels.FALSE.equals(current.get(Labels.DEPLOY_OPERANDS))) {
        // 4. The node's kill switch: every deploy label goes (mig-manager too).
        remove.addAll(deployKeys);
      } else {
        // 5-6. The workload's set: add where absent or empty, keep other values.
        List<String> effective = operandsFor(workload, false, policy);
        Set<String> wanted = new LinkedHashSet<>();
        effective.forEach(op -> wanted.add(Labels.deploy(op)));
        Set<String> leftAlone =
            allocatorConflict(node, policy)
                ? Set.of(Labels.deploy(Labels.DEVICE_PLUGIN), Labels.deploy(Labels.DRA_DRIVER))
                : Set.of();
        for (String key : deployKeys) {
          boolean migManager = key.equals(Labels.deploy(Labels.MIG_MANAGER));
          if (!wanted.contains(key) && !(container && migManager) && !leftAlone.contains(key)) {
            remove.add(key);
          }
        }
        for (String key : wanted) {
          if (blank(current.get(key)) && !leftAlone.contains(key)) {
            set.put(key, Labels.TRUE);
          }
        }
        String migKey = Labels.deploy(Labels.MIG_MANAGER);
        if (container && migCapable && !current.containsKey(migKey)) {
          set.put(migKey, Labels.TRUE);
        }
      }
      // 7. The default MIG layout, whatever the workload and the kill switch.
      String migDefault = defaultMigConfig(policy);
      if (migCapable && migDefault != null && blank(current.get(Labels.MIG_CONFIG))) {
        set.put(Labels.MIG_CONFIG, migDefault);
      }
    }

    // The driver-upgrade annotation on GPU nodes, for k8s-driver-manager.
    SortedMap<String, String> annotationsToSet = new TreeMap<>();
    Set<String> annotationsToRemove = new TreeSet<>();
    Boolean upgrades = driverUpgradeEnabled(policy);
    Map<String, String> annotations = annotations(node);
    if (gpu && upgrades != null) {
      if (upgrades && !Labels.TRUE.equals(annotations.get(Labels.DRIVER_UPGRADE_ENABLED))) {
        annotationsToSet.put(Labels.DRIVER_UPGRADE_ENABLED, Labels.TRUE);
      } else if (!upgrades && annotations.containsKey(Labels.DRIVER_UPGRADE_ENABLED)) {
        annotationsToRemove.add(Labels.DRIVER_UPGRADE_ENABLED);
      }
    }

    // Our GPU taint where the policy asks for it; elsewhere only the one we recorded is removed.
    Map<String, String> after = new HashMap<>(current);
    after.putAll(set);
    remove.forEach(after::remove);
    Taint want = gpu ? taint(after, policy) : null;
    List<Taint> existing = node.getSpec() == null ? null : node.getSpec().getTaints();
    existing = existing == null ? List.of() : existing;
    String recorded = annotations.get(Labels.TAINT_OWNER);
    // Where the policy names the taint, every taint with its key is the operator's to keep right.
    List<Taint> drop = ownedTaints(existing, recorded, want == null ? null : want.getKey());
    Taint add = null;
    if (want != null) {
      if (drop.size() == 1 && sameTaint(drop.get(0), want)) {
        drop = List.of();
      } else {
        add = want;
      }
      if (!format(want).equals(recorded)) {
        annotationsToSet.put(Labels.TAINT_OWNER, format(want));
      }
    } else if (recorded != null) {
      annotationsToRemove.add(Labels.TAINT_OWNER);
    }
    String rv = node.getMetadata() == null ? null : node.getMetadata().getResourceVersion();
    String name = node.getMetadata() == null ? null : node.getMetadata().getName();
    return new NodeLabelChange(
        name,
        rv,
        set,
        remove,
        annotationsToSet,
        annotationsToRemove,
        add,
        drop,
        taintsAfter(existing, add, drop));
  }

  /**
   * What the operator takes back when its policy is gone: the GPU taint it recorded as added (ours,
   * not the original's), and the record. The original's labels stay, as they do when its policy is
   * deleted; a taint the operator did not add stays too.
   */
  public static NodeLabelChange cleanup(Node node) {
    List<Taint> existing = node.getSpec() == null ? null : node.getSpec().getTaints();
    existing = existing == null ? List.of() : existing;
    String recorded = annotations(node).get(Labels.TAINT_OWNER);
    List<Taint> drop = ownedTaints(existing, recorded, null);
    String rv = node.getMetadata() == null ? null : node.getMetadata().getResourceVersion();
    String name = node.getMetadata() == null ? null : node.getMetadata().getName();
    return new NodeLabelChange(
        name,
        rv,
        Map.of(),
        Set.of(),
        Map.of(),
        recorded == null ? Set.of() : Set.of(Labels.TAINT_OWNER),
        null,
        drop,
        taintsAfter(existing, null, drop));
  }

  /**
   * The node's taints the operator owns: the one its annotation records as added, and, where the
   * policy names a taint, every taint with that key.
   *
   * @param recorded the {@link Labels#TAINT_OWNER} annotation's value, or null
   * @param policyKey the key of the taint the policy asks for, or null when it asks for none
   */
  private static List<Taint> ownedTaints(List<Taint> existing, String recorded, String policyKey) {
    return existing.stream()
        .filter(t -> t.getKey().equals(policyKey) || format(t).equals(recorded))
        .toList();
  }

  /** The node's taint list after the change, or null when taints do not change. */
  private static List<Taint> taintsAfter(List<Taint> existing, Taint add, List<Taint> drop) {
    if (add == null && drop.isEmpty()) {
      return null;
    }
    List<Taint> taints = new ArrayList<>();
    Set<Taint> dropped = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    dropped.addAll(drop);
    for (Taint t : existing) {
      if (!dropped.contains(t)) {
        taints.add(t);
      }
    }
    if (add != null) {
      taints.add(add);
    }
    return taints;
  }

  /** Every label key the operator may write on a node for this policy (for watch predicates). */
  public static Set<String> ownedLabelKeys(ClusterPolicy policy) {
    Set<String> keys = new LinkedHashSet<>();
    keys.add(Labels.GPU_PRESENT);
    keys.add(Labels.MIG_CONFIG);
    for (var list :
        List.of(
            Labels.CONTAINER_OPERANDS,
            Labels.VM_PASSTHROUGH_OPERANDS,
            Labels.VM_VGPU_OPERANDS,
            Labels.DRA_OPERANDS)) {
      list.forEach(op -> keys.add(Labels.deploy(op)));
    }
    keys.add(Labels.deploy(Labels.MIG_MANAGER));
    keys.add(Labels.deploy(Labels.KATA_SANDBOX_DEVICE_PLUGIN));
    return keys;
  }

  /** "key=value:Effect", as kubectl prints taints. */
  public static String format(Taint t) {
    String v = t.getValue() == null || t.getValue().isEmpty() ? "" : "=" + t.getValue();
    return t.getKey() + v + ":" + t.getEffect();
  }

  /** A deploy label the operator owns (every {@code gpu.deploy.*} but the user's kill switch). */
  private static boolean isDeployKey(String key) {
    return key.startsWith(Labels.DEPLOY_PREFIX) && !key.equals(Labels.DEPLOY_OPERANDS);
  }

  private static boolean sandboxEnabled(ClusterPolicy policy) {
    SandboxWorkloadsSpec sandbox = spec(policy).sandboxWorkloads;
    return sandbox != null && Boolean.TRUE.equals(sandbox.enabled);
  }

  private static boolean sameTaint(Taint a, Taint b) {
    return Objects.equals(a.getKey(), b.getKey())
        && Objects.equals(nullToEmpty(a.getValue()), nullToEmpty(b.getValue()))
        && Objects.equals(a.getEffect(), b.getEffect());
  }

  private static String effect(NodeTaintSpec.Effect e) {
    return switch (e) {
      case NO_SCHEDULE -> "NoSchedule";
      case PREFER_NO_SCHEDULE -> "PreferNoSchedule";
      case NO_EXECUTE -> "NoExecute";
    };
  }

  private static Map<String, String> labels(Node node) {
    if (node.getMetadata() == null || node.getMetadata().getLabels() == null) {
      return Map.of();
    }
    return node.getMetadata().getLabels();
  }

  private static Map<String, String> annotations(Node node) {
    if (node.getMetadata() == null || node.getMetadata().getAnnotations() == null) {
      return Map.of();
    }
    return node.getMetadata().getAnnotations();
  }

  private static ClusterPolicySpec spec(ClusterPolicy policy) {
    return policy == null || policy.getSpec() == null ? new ClusterPolicySpec() : policy.getSpec();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
