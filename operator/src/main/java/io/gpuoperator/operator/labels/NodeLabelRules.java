package io.gpuoperator.operator.labels;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.NodeTaintSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import java.util.ArrayList;
import java.util.Collections;
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
 * The pure rules for operator-owned node labels and the GPU taint: given a Node and the policy,
 * what the node should carry, and the {@link NodeLabelChange} that gets it there. No client, no
 * I/O.
 *
 * <p>GPU detection: a node is a GPU node when NFD reports an NVIDIA PCI device. On a node without
 * any NFD label, {@code nvidia.com/gpu.present=true} (written by our feature discovery's PCI
 * fallback) counts instead; where NFD runs it is authoritative, so the operator's own {@code
 * gpu.present} does not keep a node "GPU" after NFD stops reporting one.
 *
 * <p>Ownership: the operator owns {@code nvidia.com/gpu.present}, every {@code
 * nvidia.com/gpu.deploy.*} label except the user's kill switch {@code gpu.deploy.operands}, the
 * default {@code nvidia.com/mig.config} it wrote, and taints whose key is the policy's taint key.
 */
public final class NodeLabelRules {

  private NodeLabelRules() {}

  /**
   * What the policy wants on one node.
   *
   * @param gpuNode whether the node is a GPU node
   * @param labels every operator-owned label the node should have, with its value
   * @param taint the GPU taint the node should carry, or null for none
   */
  public record Desired(boolean gpuNode, SortedMap<String, String> labels, Taint taint) {}

  /** Whether the node has an NVIDIA GPU (see the class comment for the rule). */
  public static boolean isGpuNode(Node node) {
    Map<String, String> labels = labels(node);
    for (String key : Labels.NFD_GPU_LABELS) {
      if (Labels.TRUE.equals(labels.get(key))) {
        return true;
      }
    }
    boolean nfdRuns = labels.keySet().stream().anyMatch(k -> k.startsWith(Labels.NFD_PREFIX));
    return !nfdRuns && Labels.TRUE.equals(labels.get(Labels.GPU_PRESENT));
  }

  /** Whether any Node Feature Discovery label is on the node. */
  public static boolean hasNfdLabels(Node node) {
    return labels(node).keySet().stream().anyMatch(k -> k.startsWith(Labels.NFD_PREFIX));
  }

  /** Whether the node's GPUs support MIG, from GFD's label or the product name. */
  public static boolean isMigCapable(Node node) {
    Map<String, String> labels = labels(node);
    if (Labels.TRUE.equals(labels.get(Labels.MIG_CAPABLE))) {
      return true;
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
    if (sandbox == null || !Boolean.TRUE.equals(sandbox.enabled)) {
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

  /** The GPU taint the policy asks for, or null when {@code spec.nodeTaint.enabled=false}. */
  public static Taint policyTaint(ClusterPolicy policy) {
    NodeTaintSpec t = spec(policy).nodeTaint;
    if (t != null && Boolean.FALSE.equals(t.enabled)) {
      return null;
    }
    String key = t == null || blank(t.key) ? NodeTaintSpec.DEFAULT_KEY : t.key;
    String value = t == null || t.value == null ? NodeTaintSpec.DEFAULT_VALUE : t.value;
    String effect = t == null || t.effect == null ? "NoSchedule" : effect(t.effect);
    return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
  }

  /** The taint key whose taints the operator owns (also when the taint is disabled). */
  public static String taintKey(ClusterPolicy policy) {
    NodeTaintSpec t = spec(policy).nodeTaint;
    return t == null || blank(t.key) ? NodeTaintSpec.DEFAULT_KEY : t.key;
  }

  /** The default MIG layout from {@code spec.migManager.config.default}, or null. */
  public static String defaultMigConfig(ClusterPolicy policy) {
    var mm = spec(policy).migManager;
    if (mm == null || mm.config == null || blank(mm.config.defaultEntry)) {
      return null;
    }
    return mm.config.defaultEntry.trim();
  }

  /** Everything the policy wants on the node. */
  public static Desired desired(Node node, ClusterPolicy policy) {
    Map<String, String> current = labels(node);
    SortedMap<String, String> want = new TreeMap<>();
    if (!isGpuNode(node)) {
      return new Desired(false, want, null);
    }
    want.put(Labels.GPU_PRESENT, Labels.TRUE);
    var workload = workload(node, policy);
    boolean migCapable = isMigCapable(node);
    if (!Labels.FALSE.equals(current.get(Labels.DEPLOY_OPERANDS))) {
      for (String operand : operandsFor(workload, migCapable, policy)) {
        String key = Labels.deploy(operand);
        String existing = current.get(key);
        // A user's pin (e.g. "false") or a component's pause value is honoured; empty = absent.
        want.put(key, blank(existing) ? Labels.TRUE : existing);
      }
    }
    String migDefault = defaultMigConfig(policy);
    if (migCapable
        && workload == SandboxWorkloadsSpec.Workload.CONTAINER
        && migDefault != null
        && blank(current.get(Labels.MIG_CONFIG))) {
      want.put(Labels.MIG_CONFIG, migDefault);
    }
    return new Desired(true, want, policyTaint(policy));
  }

  /** The change that makes the node match the policy; {@link NodeLabelChange#isEmpty()} if none. */
  public static NodeLabelChange change(Node node, ClusterPolicy policy) {
    Desired desired = desired(node, policy);
    Map<String, String> current = labels(node);
    SortedMap<String, String> set = new TreeMap<>();
    desired
        .labels()
        .forEach(
            (k, v) -> {
              if (!v.equals(current.get(k))) {
                set.put(k, v);
              }
            });
    Set<String> remove = new TreeSet<>();
    String migDefault = defaultMigConfig(policy);
    for (var e : current.entrySet()) {
      String key = e.getKey();
      if (desired.labels().containsKey(key)) {
        continue;
      }
      boolean owned =
          key.equals(Labels.GPU_PRESENT)
              || (key.startsWith(Labels.DEPLOY_PREFIX) && !key.equals(Labels.DEPLOY_OPERANDS))
              || (!desired.gpuNode()
                  && key.equals(Labels.MIG_CONFIG)
                  && Objects.equals(e.getValue(), migDefault));
      // On a node without NFD, gpu.present=true is the agent's detection result, not ours.
      if (owned && !(key.equals(Labels.GPU_PRESENT) && desired.gpuNode())) {
        remove.add(key);
      }
    }

    List<Taint> existing = node.getSpec() == null ? null : node.getSpec().getTaints();
    existing = existing == null ? List.of() : existing;
    String key = desired.taint() == null ? taintKey(policy) : desired.taint().getKey();
    List<Taint> ours = existing.stream().filter(t -> key.equals(t.getKey())).toList();
    Taint add = null;
    List<Taint> drop = new ArrayList<>();
    Taint want = desired.taint();
    if (want == null) {
      drop.addAll(ours);
    } else if (!(ours.size() == 1 && sameTaint(ours.get(0), want))) {
      drop.addAll(ours);
      add = want;
    }
    List<Taint> taints = null;
    if (add != null || !drop.isEmpty()) {
      taints = new ArrayList<>();
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
    }
    String rv = node.getMetadata() == null ? null : node.getMetadata().getResourceVersion();
    String name = node.getMetadata() == null ? null : node.getMetadata().getName();
    return new NodeLabelChange(name, rv, set, remove, add, drop, taints);
  }

  /** Every label key the operator may write on a node for this policy (for watch predicates). */
  public static Set<String> ownedLabelKeys(ClusterPolicy policy) {
    Set<String> keys = new LinkedHashSet<>();
    keys.add(Labels.GPU_PRESENT);
    keys.add(Labels.MIG_CONFIG);
    for (var list :
        List.of(
            Labels.CONTAINER_OPERANDS, Labels.VM_PASSTHROUGH_OPERANDS, Labels.VM_VGPU_OPERANDS)) {
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
