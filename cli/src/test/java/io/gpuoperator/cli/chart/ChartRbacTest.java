package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.chart.RbacPermissions.Permission;
import io.gpuoperator.cli.images.ChartValues;
import io.gpuoperator.cli.images.ImagesCommand;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator ServiceAccount's effective permissions in the rendered chart equal the approved list
 * ({@code deploy/helm/gpu-operator/rbac-approved.txt}, one reviewed line per permission): adding a
 * wildcard, escalate/bind/impersonate, an RBAC write or anything not listed fails here.
 */
class ChartRbacTest {
  static final String APPROVED = "rbac-approved.txt";

  /** The subcommands of this binary: with node-agents, the operator hosts the DRA plugin. */
  private static final Set<String> AGENTS =
      OperatorConfig.subcommandsOf(GpuOperatorCommand.commandLine().getCommandSpec());

  static Set<Permission> approved() {
    return ChartFiles.read(APPROVED)
        .lines()
        .map(String::trim)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .map(Permission::parse)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  static Set<Permission> granted(List<GenericKubernetesResource> objects) {
    return RbacPermissions.of(objects, HelmChart.NAMESPACE, "gpu-operator");
  }

  @Test
  void theOperatorHoldsExactlyTheApprovedPermissions() {
    Set<Permission> granted = granted(HelmChart.objects(HelmChart.template(Map.of())));
    assertThat(RbacPermissions.violations(granted, approved())).isEmpty();
    Set<Permission> unused = new TreeSet<>(approved());
    unused.removeAll(granted);
    assertThat(unused).as("approved but no longer granted: remove from " + APPROVED).isEmpty();
  }

  /**
   * Issue 33 finding 5: the operator changes and deletes only the admission policy and binding it
   * renders (the DRA driver's, with the device plugin or instead of it, hosted or not); what
   * Kubernetes cannot limit by name (create, list, watch) is all that stays cluster-wide.
   */
  @Test
  void admissionPoliciesAreWrittenOnlyByTheNamesTheOperatorRenders(@TempDir Path dir)
      throws IOException {
    Set<String> rendered = new TreeSet<>();
    for (String values :
        List.of(
            "draDriver: {enabled: true}\n",
            "draDriver: {enabled: true}\ndevicePlugin: {enabled: false}\n")) {
      Path file = Files.writeString(dir.resolve("values.yaml"), values);
      var policy = ChartValues.load(List.of(file)).policy();
      for (boolean hosted : List.of(false, true)) {
        var config = OperatorConfig.fromEnv(Map.of()).withAgents(AGENTS).withNodeAgents(hosted);
        Operands.renderAll(policy, ImagesCommand.FACTS, config).stream()
            .flatMap(r -> r.objects().stream())
            .filter(o -> o.getApiVersion().startsWith("admissionregistration.k8s.io/"))
            .forEach(o -> rendered.add(o.getKind() + "/" + o.getMetadata().getName()));
      }
    }
    assertThat(rendered).isNotEmpty();
    Set<String> writable = new TreeSet<>();
    Set<String> anyName = new TreeSet<>();
    for (Permission p : granted(HelmChart.objects(HelmChart.template(Map.of())))) {
      if (!p.group().equals("admissionregistration.k8s.io")) {
        continue;
      }
      String kind =
          p.resource().equals("validatingadmissionpolicies")
              ? "ValidatingAdmissionPolicy"
              : "ValidatingAdmissionPolicyBinding";
      if (p.name().equals("*")) {
        anyName.add(p.verb());
      } else {
        assertThat(p.verb()).isIn("get", "update", "patch", "delete");
        writable.add(kind + "/" + p.name());
      }
    }
    assertThat(writable).isEqualTo(rendered);
    assertThat(anyName).containsExactlyInAnyOrder("create", "list", "watch");
  }

  /** The check itself: a wildcard or an unlisted permission in the chart's role is reported. */
  @Test
  void aWildcardOrAnUnlistedPermissionFails() {
    List<GenericKubernetesResource> objects =
        new ArrayList<>(HelmChart.objects(HelmChart.template(Map.of())));
    GenericKubernetesResource role = HelmChart.find(objects, "ClusterRole", "gpu-operator");
    @SuppressWarnings("unchecked")
    List<Object> rules = (List<Object>) role.getAdditionalProperties().get("rules");
    rules.add(
        Map.of("apiGroups", List.of(""), "resources", List.of("secrets"), "verbs", List.of("*")));
    rules.add(
        Map.of(
            "apiGroups", List.of(""), "resources", List.of("configmaps"), "verbs", List.of("get")));
    rules.add(
        Map.of(
            "apiGroups", List.of("rbac.authorization.k8s.io"),
            "resources", List.of("clusterroles"),
            "verbs", List.of("create", "escalate")));
    assertThat(RbacPermissions.violations(granted(objects), approved()))
        .contains(
            "wildcard: cluster core secrets * *",
            "not in the approved list: cluster core configmaps get *",
            "RBAC written at run time (ship it in the chart): cluster rbac.authorization.k8s.io"
                + " clusterroles create *",
            "forbidden verb escalate: cluster rbac.authorization.k8s.io clusterroles escalate *");
  }

  /** The operands' roles ship in the chart, none of them with a wildcard either. */
  @Test
  void operandRbacShipsWithTheChartWithoutWildcards() {
    var objects = HelmChart.objects(HelmChart.template(Map.of()));
    var kinds =
        objects.stream()
            .filter(o -> o.getApiVersion().startsWith("rbac.authorization.k8s.io"))
            .map(o -> o.getKind() + "/" + o.getMetadata().getName())
            .toList();
    assertThat(kinds)
        .contains(
            "ClusterRole/nvidia-device-plugin",
            "ClusterRoleBinding/nvidia-device-plugin",
            "ClusterRole/nvidia-mig-manager",
            "Role/nvidia-driver",
            "ClusterRole/nvidia-dra-driver-gpu");
    assertThat(ChartFiles.read(ChartFiles.OPERANDS_RBAC))
        .doesNotContain("\"*\"")
        .doesNotContain("- '*'");
  }
}
