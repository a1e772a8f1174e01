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
   * OpenShift: the operator changes and deletes SecurityContextConstraints only by the names it
   * renders, with every operand on (the DCGM host engine and the node-status exporter too) and each
   * operand on NVIDIA's image and on our agent.
   */
  @Test
  void securityContextConstraintsAreWrittenOnlyByTheNamesTheOperatorRenders(@TempDir Path dir)
      throws IOException {
    String values =
        "dcgm: {enabled: true}\nnodeStatusExporter: {enabled: true}\n"
            + "sandboxWorkloads: {enabled: true, mode: MODE}\n"
            + "vgpuManager: {enabled: true, repository: r.example, image: vgpu, version: '1'}\n"
            + "vfioManager: {enabled: true}\nsandboxDevicePlugin: {enabled: true}\n"
            + "kataSandboxDevicePlugin: {enabled: true}\nccManager: {enabled: true}\n";
    Set<String> rendered = new TreeSet<>();
    var config = OperatorConfig.fromEnv(Map.of()).withAgents(AGENTS);
    // The CC manager runs in kata mode, the KubeVirt device plugin in kubevirt mode.
    for (String mode : List.of("kubevirt", "kata")) {
      Path file = Files.writeString(dir.resolve("values.yaml"), values.replace("MODE", mode));
      var policy = ChartValues.load(List.of(file)).policy();
      Operands.renderAll(policy, ImagesCommand.FACTS.withOpenShift(true), config).stream()
          .flatMap(r -> r.objects().stream())
          .filter(o -> o.getKind().equals("SecurityContextConstraints"))
          .forEach(o -> rendered.add(o.getMetadata().getName()));
    }
    assertThat(rendered).hasSize(12);
    Set<String> writable = new TreeSet<>();
    Set<String> anyName = new TreeSet<>();
    for (Permission p : granted(HelmChart.objects(HelmChart.template(Map.of())))) {
      if (!p.group().equals("security.openshift.io")) {
        continue;
      }
      if (p.name().equals("*")) {
        anyName.add(p.verb());
      } else {
        assertThat(p.verb()).isIn("get", "update", "patch", "delete");
        writable.add(p.name());
      }
    }
    assertThat(writable).isEqualTo(rendered);
    assertThat(anyName).containsExactlyInAnyOrder("create", "list", "watch");
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

  /**
   * Issue 33 finding 5: every cluster-wide permission the chart gives the operator has a row, with
   * a reason, in docs/security.md, and every row is still granted. A row is {@code | `group` |
   * `resource` | verbs | names | why |}: "core" for the "" group, verbs and names comma-separated,
   * "any" for every name.
   */
  @Test
  void everyClusterWidePermissionIsDocumentedWithItsReason() throws IOException {
    Set<Permission> granted = new TreeSet<>();
    for (Permission p : granted(HelmChart.objects(HelmChart.template(Map.of())))) {
      if (p.scope().equals("cluster")) {
        granted.add(p);
      }
    }
    assertThat(granted).isNotEmpty();
    Set<Permission> documented = new TreeSet<>();
    List<String> unexplained = new ArrayList<>();
    for (String[] row : documentedRows(Files.readString(SECURITY_DOC))) {
      if (row[4].isBlank()) {
        unexplained.add(String.join(" ", row));
      }
      for (String verb : row[2].split(",")) {
        for (String name : row[3].split(",")) {
          String n = name.trim().replace("`", "");
          documented.add(
              new Permission(
                  "cluster",
                  row[0].replace("`", ""),
                  row[1].replace("`", ""),
                  verb.trim(),
                  n.equals("any") ? "*" : n));
        }
      }
    }
    assertThat(unexplained).as("rows without a reason in " + SECURITY_DOC).isEmpty();
    Set<Permission> undocumented = new TreeSet<>(granted);
    undocumented.removeAll(documented);
    assertThat(undocumented)
        .as("granted cluster-wide but without a row (and its reason) in " + SECURITY_DOC)
        .isEmpty();
    Set<Permission> stale = new TreeSet<>(documented);
    stale.removeAll(granted);
    assertThat(stale).as("documented in " + SECURITY_DOC + " but no longer granted").isEmpty();
  }

  /** The checker reads what a row says: one missing verb is found. */
  @Test
  void aRowsVerbsAndNamesAreExpanded() {
    String doc =
        RBAC_BEGIN
            + "\n| API group | Resource | Verbs | Names | Why |\n|---|---|---|---|---|\n"
            + "| `core` | `namespaces` | get, patch | `gpu-operator` | its own PSA labels |\n"
            + "| `nvidia.com` | `clusterpolicies` | get, list | any | |\n"
            + RBAC_END;
    var rows = documentedRows(doc);
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0))
        .containsExactly(
            "`core`", "`namespaces`", "get, patch", "`gpu-operator`", "its own PSA labels");
    assertThat(rows.get(1)[4]).isEmpty();
  }

  static final Path SECURITY_DOC = Path.of("..", "docs", "security.md");
  static final String RBAC_BEGIN = "<!-- cluster-wide RBAC: checked by ChartRbacTest -->";
  static final String RBAC_END = "<!-- end of cluster-wide RBAC -->";

  /** The table rows between the markers, header and separator left out, cells trimmed. */
  static List<String[]> documentedRows(String doc) {
    int begin = doc.indexOf(RBAC_BEGIN);
    int end = doc.indexOf(RBAC_END);
    assertThat(begin).as("marker " + RBAC_BEGIN).isNotNegative();
    assertThat(end).as("marker " + RBAC_END).isGreaterThan(begin);
    List<String[]> rows = new ArrayList<>();
    for (String line : doc.substring(begin + RBAC_BEGIN.length(), end).lines().toList()) {
      line = line.trim();
      if (!line.startsWith("|") || line.startsWith("|---") || line.startsWith("| API group")) {
        continue;
      }
      String[] cells = line.substring(1, line.length() - 1).split("\\|", -1);
      if (cells.length != 5) {
        throw new AssertionError("expected 5 cells (group, resource, verbs, names, why): " + line);
      }
      for (int i = 0; i < cells.length; i++) {
        cells[i] = cells[i].trim();
      }
      rows.add(cells);
    }
    return rows;
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
