package io.gpuoperator.operator.labels;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.MigManagerSpec;
import io.gpuoperator.api.v1.NodeTaintSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.Policies;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NodeLabelRulesTest {
  private static final String NFD_GPU = "feature.node.kubernetes.io/pci-10de.present";
  private static final String DP = "nvidia.com/gpu.deploy.device-plugin";
  private static final String DRA = "nvidia.com/gpu.deploy.dra-driver";
  private static final Taint GPU_TAINT =
      new TaintBuilder()
          .withKey("nvidia.com/gpu")
          .withValue("present")
          .withEffect("NoSchedule")
          .build();

  private static Node node(Map<String, String> labels, Taint... taints) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n1")
        .withResourceVersion("42")
        .withLabels(new HashMap<>(labels))
        .withAnnotations(new HashMap<>())
        .endMetadata()
        .withNewSpec()
        .withTaints(List.of(taints))
        .endSpec()
        .build();
  }

  /** The node with the record of the GPU taint the operator added to it. */
  private static Node recorded(Node node) {
    node.getMetadata()
        .getAnnotations()
        .put(Labels.TAINT_OWNER, "nvidia.com/gpu=present:NoSchedule");
    return node;
  }

  /** A policy that asks for the GPU taint with every default (the section given empty). */
  private static ClusterPolicy tainting() {
    ClusterPolicy p = Policies.minimal();
    p.getSpec().nodeTaint = new NodeTaintSpec();
    return p;
  }

  /** The node after applying the change, as the API server would. */
  private static Node apply(Node node, NodeLabelChange change) {
    Map<String, String> labels = new HashMap<>(node.getMetadata().getLabels());
    labels.putAll(change.labelsToSet());
    change.labelsToRemove().forEach(labels::remove);
    List<Taint> taints = change.taints() == null ? node.getSpec().getTaints() : change.taints();
    Node after = node(labels, taints.toArray(Taint[]::new));
    Map<String, String> annotations = after.getMetadata().getAnnotations();
    annotations.putAll(node.getMetadata().getAnnotations());
    annotations.putAll(change.annotationsToSet());
    change.annotationsToRemove().forEach(annotations::remove);
    return after;
  }

  private static Map<String, String> deployLabels(Map<String, String> labels) {
    return labels.entrySet().stream()
        .filter(e -> e.getKey().startsWith(Labels.DEPLOY_PREFIX))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  @Test
  void nfdGpuNodeGetsPresentAllContainerDeployLabelsAndNoTaintByDefault() {
    Node n = node(Map.of(NFD_GPU, "true"));
    NodeLabelChange c = NodeLabelRules.change(n, Policies.minimal());
    assertThat(c.labelsToSet())
        .containsEntry(Labels.GPU_PRESENT, "true")
        .containsEntry("nvidia.com/gpu.deploy.driver", "true")
        .containsEntry("nvidia.com/gpu.deploy.container-toolkit", "true")
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.gpu-feature-discovery", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "true")
        .containsEntry("nvidia.com/gpu.deploy.node-status-exporter", "true")
        .containsEntry("nvidia.com/gpu.deploy.operator-validator", "true")
        .doesNotContainKey("nvidia.com/gpu.deploy.mig-manager");
    // As the original: no taint unless spec.nodeTaint asks for one.
    assertThat(c.taintToAdd()).isNull();
    assertThat(c.changesTaints()).isFalse();
    assertThat(c.annotationsToSet()).doesNotContainKey(Labels.TAINT_OWNER);
    assertThat(NodeLabelRules.desired(n, Policies.minimal()).taint()).isNull();
    // Applying the change converges: a second pass wants nothing.
    assertThat(NodeLabelRules.change(apply(n, c), Policies.minimal()).isEmpty()).isTrue();
  }

  @Test
  void nodeTaintGivenTaintsTheGpuNodeAndRecordsTheTaintAsAdded() {
    Node n = node(Map.of(NFD_GPU, "true"));
    NodeLabelChange c = NodeLabelRules.change(n, tainting());
    assertThat(c.taintToAdd()).isEqualTo(GPU_TAINT);
    assertThat(c.taints()).containsExactly(GPU_TAINT);
    assertThat(c.annotationsToSet())
        .containsEntry(Labels.TAINT_OWNER, "nvidia.com/gpu=present:NoSchedule");
    Node after = apply(n, c);
    assertThat(NodeLabelRules.change(after, tainting()).isEmpty()).isTrue();
    // The section removed: the taint recorded as ours goes, and the record with it.
    NodeLabelChange off = NodeLabelRules.change(after, Policies.minimal());
    assertThat(off.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(off.taints()).isEmpty();
    assertThat(off.annotationsToRemove()).containsExactly(Labels.TAINT_OWNER);
    assertThat(NodeLabelRules.change(apply(after, off), Policies.minimal()).isEmpty()).isTrue();
  }

  @Test
  void aTaintTheOperatorDidNotRecordStaysWhenThePolicyAsksForNone() {
    // Set by hand (as under the original), or by an earlier version that kept no record.
    Taint other = new TaintBuilder().withKey("nvidia.com/gpu").withEffect("NoExecute").build();
    Node n = node(Map.of(NFD_GPU, "true", Labels.GPU_PRESENT, "true"), GPU_TAINT, other);
    assertThat(NodeLabelRules.change(n, Policies.minimal()).changesTaints()).isFalse();
    assertThat(NodeLabelRules.cleanup(n).isEmpty()).isTrue();
    ClusterPolicy disabled = tainting();
    disabled.getSpec().nodeTaint.enabled = false;
    assertThat(NodeLabelRules.change(n, disabled).changesTaints()).isFalse();
    // Recorded: only the recorded one goes, on policy deletion too.
    NodeLabelChange cleanup = NodeLabelRules.cleanup(recorded(n));
    assertThat(cleanup.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(cleanup.taints()).containsExactly(other);
    assertThat(cleanup.annotationsToRemove()).containsExactly(Labels.TAINT_OWNER);
    // Asked for: every taint with the policy's key is the operator's to keep right.
    NodeLabelChange asked = NodeLabelRules.change(n, tainting());
    assertThat(asked.taintsToRemove()).containsExactlyInAnyOrder(GPU_TAINT, other);
    assertThat(asked.taints()).containsExactly(GPU_TAINT);
  }

  @Test
  void everyNfdGpuLabelVariantIsDetected() {
    for (String key : Labels.NFD_GPU_LABELS) {
      assertThat(NodeLabelRules.isGpuNode(node(Map.of(key, "true")))).as(key).isTrue();
      assertThat(NodeLabelRules.isGpuNode(node(Map.of(key, "false")))).as(key).isFalse();
    }
  }

  @Test
  void nonGpuNodeIsLeftUntouched() {
    Node n = node(Map.of("feature.node.kubernetes.io/pci-15b3.present", "true", "x", "y"));
    NodeLabelChange c = NodeLabelRules.change(n, Policies.minimal());
    assertThat(c.isEmpty()).isTrue();
    assertThat(c.toMergePatch()).isEmpty();
  }

  @Test
  void nodeThatStopsBeingAGpuNodeLosesOurLabelsAndTaintButKeepsOthers() {
    Taint other =
        new TaintBuilder().withKey("dedicated").withValue("x").withEffect("NoSchedule").build();
    Node n =
        node(
            Map.of(
                "feature.node.kubernetes.io/cpu-model.vendor_id",
                "Intel",
                Labels.GPU_PRESENT,
                "true",
                "nvidia.com/gpu.deploy.driver",
                "true",
                "nvidia.com/gpu.deploy.device-plugin",
                "false",
                Labels.DEPLOY_OPERANDS,
                "false",
                "team",
                "a"),
            other,
            GPU_TAINT);
    NodeLabelChange c = NodeLabelRules.change(recorded(n), tainting());
    // As the original: gpu.present becomes false rather than going away.
    assertThat(c.labelsToSet()).containsExactly(Map.entry(Labels.GPU_PRESENT, "false"));
    assertThat(c.labelsToRemove())
        .containsExactlyInAnyOrder(
            "nvidia.com/gpu.deploy.device-plugin", "nvidia.com/gpu.deploy.driver");
    assertThat(c.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(c.taints()).containsExactly(other);
    assertThat(apply(n, c).getMetadata().getLabels())
        .containsOnlyKeys(
            "feature.node.kubernetes.io/cpu-model.vendor_id",
            Labels.GPU_PRESENT,
            Labels.DEPLOY_OPERANDS,
            "team");
  }

  @Test
  void onlyNfdsPciLabelsMakeAGpuNode() {
    // gpu.present is the operator's own label: it does not make a GPU node by itself.
    Node withoutNfd = node(Map.of(Labels.GPU_PRESENT, "true"));
    assertThat(NodeLabelRules.isGpuNode(withoutNfd)).isFalse();
    assertThat(NodeLabelRules.change(withoutNfd, Policies.minimal()).labelsToSet())
        .containsExactly(Map.entry(Labels.GPU_PRESENT, "false"));
  }

  @Test
  void pciDiscoveryMakesAGpuNodeOnlyWhereNoNfdLabelIs() {
    Node discovered = node(Map.of(Labels.PCI_PRESENT, "true"));
    assertThat(NodeLabelRules.isGpuNode(discovered)).isTrue();
    assertThat(NodeLabelRules.change(discovered, Policies.minimal()).labelsToSet())
        .containsEntry(Labels.GPU_PRESENT, "true")
        .containsEntry(Labels.deploy(Labels.DEVICE_PLUGIN), "true");
    assertThat(NodeLabelRules.isGpuNode(node(Map.of(Labels.PCI_PRESENT, "false")))).isFalse();
    // Where NFD runs, its labels alone decide.
    Node nfdSaysNo =
        node(
            Map.of(
                Labels.PCI_PRESENT, "true", "feature.node.kubernetes.io/pci-1af4.present", "true"));
    assertThat(NodeLabelRules.isGpuNode(nfdSaysNo)).isFalse();
  }

  @Test
  void usersPinsAreHonouredAndEmptyValuesTreatedAsAbsent() {
    Node n =
        node(
            Map.of(
                NFD_GPU,
                "true",
                "nvidia.com/gpu.deploy.device-plugin",
                "false",
                "nvidia.com/gpu.deploy.dcgm",
                "paused-for-mig-change",
                "nvidia.com/gpu.deploy.driver",
                ""));
    NodeLabelChange c = NodeLabelRules.change(n, Policies.minimal());
    assertThat(c.labelsToSet())
        .doesNotContainKey("nvidia.com/gpu.deploy.device-plugin")
        .doesNotContainKey("nvidia.com/gpu.deploy.dcgm")
        .containsEntry("nvidia.com/gpu.deploy.driver", "true");
    assertThat(c.labelsToRemove()).isEmpty();
    Map<String, String> after = apply(n, c).getMetadata().getLabels();
    assertThat(after).containsEntry("nvidia.com/gpu.deploy.device-plugin", "false");
  }

  @Test
  void killSwitchRemovesEveryDeployLabelButKeepsPresenceAndTaint() {
    Node n =
        node(
            Map.of(
                NFD_GPU,
                "true",
                Labels.GPU_PRESENT,
                "true",
                Labels.DEPLOY_OPERANDS,
                "false",
                "nvidia.com/gpu.deploy.driver",
                "true",
                "nvidia.com/gpu.deploy.device-plugin",
                "false"),
            GPU_TAINT);
    NodeLabelChange c = NodeLabelRules.change(n, Policies.minimal());
    assertThat(c.labelsToSet()).isEmpty();
    assertThat(c.labelsToRemove())
        .containsExactly("nvidia.com/gpu.deploy.device-plugin", "nvidia.com/gpu.deploy.driver");
    assertThat(c.changesTaints()).isFalse();
    assertThat(deployLabels(apply(n, c).getMetadata().getLabels()))
        .containsOnlyKeys(Labels.DEPLOY_OPERANDS);
  }

  @Test
  void migManagerOnlyOnMigCapableNodesWithTheDefaultConfig() {
    ClusterPolicy p = Policies.minimal();
    p.getSpec().migManager = new MigManagerSpec();
    p.getSpec().migManager.config = new NamedRef("default-mig-parted-config");
    p.getSpec().migManager.config.defaultEntry = "all-disabled";
    Node byGfd = node(Map.of(NFD_GPU, "true", Labels.MIG_CAPABLE, "true"));
    assertThat(NodeLabelRules.change(byGfd, p).labelsToSet())
        .containsEntry("nvidia.com/gpu.deploy.mig-manager", "true")
        .containsEntry(Labels.MIG_CONFIG, "all-disabled");
    for (String product : List.of("NVIDIA-A100-SXM4-40GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-A30")) {
      Node n = node(Map.of(NFD_GPU, "true", Labels.GPU_PRODUCT, product));
      assertThat(NodeLabelRules.change(n, p).labelsToSet())
          .as(product)
          .containsKey("nvidia.com/gpu.deploy.mig-manager");
    }
    // Other MIG GPUs (H200 ...) are MIG-capable only once feature discovery says so.
    Node h200 = node(Map.of(NFD_GPU, "true", Labels.GPU_PRODUCT, "NVIDIA-H200"));
    assertThat(NodeLabelRules.change(h200, p).labelsToSet())
        .doesNotContainKey("nvidia.com/gpu.deploy.mig-manager");
    Node t4 = node(Map.of(NFD_GPU, "true", Labels.GPU_PRODUCT, "Tesla-T4"));
    assertThat(NodeLabelRules.change(t4, p).labelsToSet())
        .doesNotContainKey("nvidia.com/gpu.deploy.mig-manager")
        .doesNotContainKey(Labels.MIG_CONFIG);
    Node chosen =
        node(Map.of(NFD_GPU, "true", Labels.MIG_CAPABLE, "true", Labels.MIG_CONFIG, "all-1g.10gb"));
    assertThat(NodeLabelRules.change(chosen, p).labelsToSet()).doesNotContainKey(Labels.MIG_CONFIG);
    assertThat(NodeLabelRules.change(chosen, p).labelsToRemove()).doesNotContain(Labels.MIG_CONFIG);
  }

  @Test
  void workloadConfigIsOnlyHonouredWithSandboxWorkloads() {
    Node vm = node(Map.of(NFD_GPU, "true", Labels.WORKLOAD_CONFIG, "vm-passthrough"));
    assertThat(NodeLabelRules.change(vm, Policies.minimal()).labelsToSet())
        .containsKey("nvidia.com/gpu.deploy.driver")
        .doesNotContainKey("nvidia.com/gpu.deploy.vfio-manager");

    ClusterPolicy p = Policies.minimal();
    p.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    p.getSpec().sandboxWorkloads.enabled = true;
    assertThat(deployLabels(NodeLabelRules.change(vm, p).labelsToSet()).keySet())
        .containsExactlyInAnyOrder(
            "nvidia.com/gpu.deploy.sandbox-device-plugin",
            "nvidia.com/gpu.deploy.sandbox-validator",
            "nvidia.com/gpu.deploy.vfio-manager",
            "nvidia.com/gpu.deploy.kata-manager",
            "nvidia.com/gpu.deploy.cc-manager",
            "nvidia.com/gpu.deploy.client");
    p.getSpec().sandboxWorkloads.mode = SandboxWorkloadsSpec.Mode.KATA;
    assertThat(NodeLabelRules.change(vm, p).labelsToSet())
        .containsKey("nvidia.com/gpu.deploy.kata-sandbox-device-plugin")
        .doesNotContainKey("nvidia.com/gpu.deploy.sandbox-device-plugin");

    Node vgpu = node(Map.of(NFD_GPU, "true", Labels.WORKLOAD_CONFIG, "vm-vgpu"));
    assertThat(NodeLabelRules.change(vgpu, p).labelsToSet())
        .containsKey("nvidia.com/gpu.deploy.vgpu-manager")
        .containsKey("nvidia.com/gpu.deploy.vgpu-device-manager")
        .doesNotContainKey("nvidia.com/gpu.deploy.driver");

    // Switching a container node to vm-vgpu removes the container operands' labels.
    Node was =
        node(
            Map.of(
                NFD_GPU,
                "true",
                Labels.GPU_PRESENT,
                "true",
                Labels.WORKLOAD_CONFIG,
                "vm-vgpu",
                "nvidia.com/gpu.deploy.driver",
                "true"));
    assertThat(NodeLabelRules.change(was, p).labelsToRemove())
        .contains("nvidia.com/gpu.deploy.driver");

    p.getSpec().sandboxWorkloads.defaultWorkload = SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH;
    Node bad = node(Map.of(NFD_GPU, "true", Labels.WORKLOAD_CONFIG, "nonsense"));
    assertThat(NodeLabelRules.workload(bad, p))
        .isEqualTo(SandboxWorkloadsSpec.Workload.VM_PASSTHROUGH);
  }

  @Test
  void taintFollowsThePolicy() {
    Node n = recorded(node(Map.of(NFD_GPU, "true", Labels.GPU_PRESENT, "true"), GPU_TAINT));
    // The section given with its defaults: the taint is already right.
    assertThat(NodeLabelRules.change(n, tainting()).changesTaints()).isFalse();

    ClusterPolicy disabled = tainting();
    disabled.getSpec().nodeTaint.enabled = false;
    NodeLabelChange off = NodeLabelRules.change(n, disabled);
    assertThat(off.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(off.taints()).isEmpty();

    ClusterPolicy custom = tainting();
    custom.getSpec().nodeTaint.value = "reserved";
    custom.getSpec().nodeTaint.effect = NodeTaintSpec.Effect.NO_EXECUTE;
    NodeLabelChange changed = NodeLabelRules.change(n, custom);
    assertThat(changed.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(changed.taintToAdd().getValue()).isEqualTo("reserved");
    assertThat(changed.taintToAdd().getEffect()).isEqualTo("NoExecute");
    assertThat(changed.taints()).hasSize(1);
    assertThat(changed.annotationsToSet())
        .containsEntry(Labels.TAINT_OWNER, "nvidia.com/gpu=reserved:NoExecute");

    // Another key: the recorded taint (the old key) goes, the new one comes.
    ClusterPolicy rekeyed = tainting();
    rekeyed.getSpec().nodeTaint.key = "example.com/gpu";
    NodeLabelChange moved = NodeLabelRules.change(n, rekeyed);
    assertThat(moved.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(moved.taints()).extracting(Taint::getKey).containsExactly("example.com/gpu");
  }

  @Test
  void mergePatchCarriesLabelsNullsTaintsAndTheResourceVersionForTaints() {
    Node n = node(Map.of(NFD_GPU, "true", "nvidia.com/gpu.deploy.vfio-manager", "true"));
    NodeLabelChange c = NodeLabelRules.change(n, tainting());
    String json = c.toMergePatchJson();
    assertThat(json)
        .contains("\"nvidia.com/gpu.present\":\"true\"")
        .contains("\"nvidia.com/gpu.deploy.vfio-manager\":null")
        .contains("\"resourceVersion\":\"42\"")
        .contains(
            "\"taints\":[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"}]");
    // Labels only: no resourceVersion, so label patches never conflict.
    Node tainted = recorded(node(Map.of(NFD_GPU, "true"), GPU_TAINT));
    String labelsOnly = NodeLabelRules.change(tainted, tainting()).toMergePatchJson();
    assertThat(labelsOnly).doesNotContain("resourceVersion").doesNotContain("taints");
    assertThat(c.describe())
        .contains("+nvidia.com/gpu.present=true")
        .contains("+taint nvidia.com/gpu=present:NoSchedule");
  }

  private static ClusterPolicy dra(boolean devicePlugin) {
    return Policies.withSpec(
        "  draDriver: {enabled: true}\n" + "  devicePlugin: {enabled: " + devicePlugin + "}\n");
  }

  @Test
  void theDraDriverReplacesTheDevicePluginWhenThatIsOff() {
    ClusterPolicy policy = dra(false);
    policy.getSpec().nodeTaint = new NodeTaintSpec();
    // A node that ran the device plugin: its label goes, the DRA driver's comes, in one change,
    // and so does the GPU taint (pods that claim devices get no automatic toleration).
    Node n =
        recorded(node(Map.of(NFD_GPU, "true", Labels.GPU_PRESENT, "true", DP, "true"), GPU_TAINT));
    NodeLabelChange c = NodeLabelRules.change(n, policy);
    assertThat(c.labelsToSet()).containsEntry(DRA, "true");
    assertThat(c.labelsToRemove()).contains(DP);
    assertThat(c.taintsToRemove()).containsExactly(GPU_TAINT);
    assertThat(NodeLabelRules.desired(n, policy).taint()).isNull();
    assertThat(NodeLabelRules.allocatorConflict(n, policy)).isFalse();
    Node after = apply(n, c);
    assertThat(NodeLabelRules.change(after, policy).isEmpty()).isTrue();
    // Without the DRA driver, its label goes as every label outside the effective set.
    NodeLabelChange back = NodeLabelRules.change(after, tainting());
    assertThat(back.labelsToRemove()).contains(DRA);
    assertThat(back.labelsToSet()).containsEntry(DP, "true");
    assertThat(back.taintToAdd()).isEqualTo(GPU_TAINT);
  }

  @Test
  void withBothOnANodeServesTheOneNotSetToFalseAndANodeWithNeitherIsLeftAlone() {
    ClusterPolicy policy = dra(true);
    // Chose DRA: the device plugin's false is kept, the DRA driver's label added.
    Node draNode = node(Map.of(NFD_GPU, "true", DP, "false"));
    assertThat(NodeLabelRules.change(draNode, policy).labelsToSet()).containsEntry(DRA, "true");
    assertThat(NodeLabelRules.allocatorConflict(draNode, policy)).isFalse();
    // Chose the device plugin.
    Node dpNode = node(Map.of(NFD_GPU, "true", DRA, "false"));
    assertThat(NodeLabelRules.change(dpNode, policy).labelsToSet()).containsEntry(DP, "true");
    assertThat(NodeLabelRules.allocatorConflict(dpNode, policy)).isFalse();
    // Chose nothing: running the device plugin (or DRA, or nothing yet), nothing changes on
    // either label, while the rest of the node's labels follow the policy as usual.
    for (Map<String, String> labels :
        List.of(
            Map.of(NFD_GPU, "true", DP, "true"),
            Map.of(NFD_GPU, "true", DRA, "true"),
            Map.of(NFD_GPU, "true", DP, "true", DRA, "true"),
            Map.of(NFD_GPU, "true"))) {
      Node n = node(labels);
      NodeLabelChange c = NodeLabelRules.change(n, policy);
      assertThat(NodeLabelRules.allocatorConflict(n, policy)).as("%s", labels).isTrue();
      assertThat(c.labelsToSet()).as("%s", labels).doesNotContainKeys(DP, DRA);
      assertThat(c.labelsToRemove()).as("%s", labels).doesNotContain(DP, DRA);
      assertThat(c.labelsToSet()).containsEntry("nvidia.com/gpu.deploy.driver", "true");
    }
    // Not a conflict: the node's operands are off, it is not a GPU node, or the policy has one.
    assertThat(
            NodeLabelRules.allocatorConflict(
                node(Map.of(NFD_GPU, "true", Labels.DEPLOY_OPERANDS, "false")), policy))
        .isFalse();
    assertThat(NodeLabelRules.allocatorConflict(node(Map.of("x", "y")), policy)).isFalse();
    assertThat(NodeLabelRules.allocatorConflict(node(Map.of(NFD_GPU, "true")), dra(false)))
        .isFalse();
    assertThat(NodeLabelRules.allocatorConflict(node(Map.of(NFD_GPU, "true")), Policies.minimal()))
        .isFalse();
  }

  @Test
  void ownedKeysCoverEveryLabelTheRulesWrite() {
    var owned = NodeLabelRules.ownedLabelKeys(Policies.minimal());
    ClusterPolicy p = Policies.minimal();
    p.getSpec().sandboxWorkloads = new SandboxWorkloadsSpec();
    p.getSpec().sandboxWorkloads.enabled = true;
    p.getSpec().migManager = new MigManagerSpec();
    p.getSpec().migManager.config = new NamedRef("c");
    p.getSpec().migManager.config.defaultEntry = "all-disabled";
    for (String workload : List.of("container", "vm-passthrough", "vm-vgpu")) {
      Node n =
          node(
              Map.of(
                  NFD_GPU, "true", Labels.MIG_CAPABLE, "true", Labels.WORKLOAD_CONFIG, workload));
      assertThat(owned).containsAll(NodeLabelRules.change(n, p).labelsToSet().keySet());
    }
  }
}
