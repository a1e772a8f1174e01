package io.gpuoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.reconciler.OperandApplier;
import io.gpuoperator.operator.reconciler.ServerRejection;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 19.3: {@code plan} must not call valid what the API server refuses. Mutated policies (a
 * seeded generator over the fields that end up in rendered objects: names, labels, annotations,
 * tolerations, env, resources, pull policies) that pass offline validation are rendered and every
 * object is dry-run on a real API server; none may be refused. {@code plan --kubeconfig} runs the
 * same dry run and reports a refused object in one short line naming the field.
 */
@ExtendWith(ControlPlaneExtension.class)
class PlanDryRunIT {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int CASES = 60;

  /** Fields whose values reach rendered objects, as paths into the sample policy. */
  private static final List<String> PATHS =
      List.of(
          "metadata.name",
          "spec.daemonsets.labels.team",
          "spec.daemonsets.labels.app\\.kubernetes\\.io/managed-by",
          "spec.daemonsets.annotations.note",
          "spec.daemonsets.tolerations[0].key",
          "spec.daemonsets.tolerations[0].operator",
          "spec.daemonsets.tolerations[0].effect",
          "spec.daemonsets.tolerations[0].value",
          "spec.daemonsets.tolerations[0].tolerationSeconds",
          "spec.daemonsets.priorityClassName",
          "spec.daemonsets.updateStrategy",
          "spec.daemonsets.rollingUpdate.maxUnavailable",
          "spec.validator.plugin.env[0].name",
          "spec.validator.plugin.env[0].value",
          "spec.validator.imagePullPolicy",
          "spec.validator.version",
          "spec.devicePlugin.env[0].name",
          "spec.devicePlugin.resources.limits.cpu",
          "spec.devicePlugin.resources.requests.memory",
          "spec.devicePlugin.imagePullSecrets[0]",
          "spec.devicePlugin.args[0]",
          "spec.driver.repository",
          "spec.operator.runtimeClass",
          "spec.toolkit.installDir",
          "spec.hostPaths.driverInstallDir");

  private static final List<JsonNode> VALUES =
      List.of(
          NODES.textNode(""),
          NODES.nullNode(),
          NODES.numberNode(-1),
          NODES.numberNode(30),
          NODES.numberNode(2.5),
          NODES.booleanNode(true),
          NODES.textNode("a b"),
          NODES.textNode("UPPER NS!"),
          NODES.textNode("x/y"),
          NODES.textNode("../etc"),
          NODES.textNode("k".repeat(300)),
          NODES.textNode("NoSchedule"),
          NODES.textNode("NoExecute"),
          NODES.textNode("Exists"),
          NODES.textNode("Equal"),
          NODES.textNode("Always"),
          NODES.textNode("ok-value"),
          NODES.textNode("/abs/path"),
          NODES.textNode("100m"),
          NODES.textNode("1Gi"),
          NODES.textNode("-5"),
          NODES.objectNode().put("a", 1));

  @TempDir Path dir;

  @Test
  void whatOfflineValidationPassesTheServerAccepts(KubernetesClient client, ControlPlane cp)
      throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "dryrun");
    OperatorConfig config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", ns));
    ClusterFacts facts = NodeFacts.of(List.of(), "v1.36.3", false);
    Set<String> served = ManagedObjects.served(Set.of(), null);
    ObjectNode sample;
    try (InputStream in = Policies.class.getResourceAsStream(Policies.SAMPLE)) {
      sample = (ObjectNode) YAML.readTree(in);
    }
    Random random = new Random(19);
    List<String> refused = new ArrayList<>();
    int valid = 0;
    int invalid = 0;
    for (int i = 0; i < CASES; i++) {
      ObjectNode policy = sample.deepCopy();
      String path = PATHS.get(random.nextInt(PATHS.size()));
      JsonNode value = VALUES.get(random.nextInt(VALUES.size()));
      set(policy, path, value);
      String what = path + " = " + value;
      PolicyFile parsed = PolicyFile.parse(YAML.writeValueAsString(policy), what);
      List<RenderedOperand> rendered;
      try {
        if (!parsed.valid()) {
          invalid++;
          continue;
        }
        rendered = Operands.renderAll(parsed.policy(), facts, config);
      } catch (PolicyValidationException e) {
        invalid++;
        continue;
      }
      valid++;
      for (ServerRejection r : OperandApplier.dryRun(client, rendered, served, false)) {
        refused.add(what + ": " + r.getMessage());
      }
    }
    assertThat(refused).as("valid offline, refused by the API server").isEmpty();
    // The generator reaches both sides of validation.
    assertThat(valid).isGreaterThan(CASES / 10);
    assertThat(invalid).isGreaterThan(CASES / 10);

    // The inputs the issue names are rejected offline, naming the field.
    assertThat(
            planOffline(
                policyWith(
                    sample,
                    "spec.daemonsets.tolerations[0].tolerationSeconds",
                    NODES.numberNode(30))))
        .contains("spec.daemonsets.tolerations[0]")
        .contains("NoExecute");
    assertThat(planOffline(policyWith(sample, "metadata.name", NODES.textNode("Bad Name"))))
        .contains("metadata.name");
    assertThat(
            planOffline(
                policyWith(sample, "spec.daemonsets.annotations.note", NODES.numberNode(5))))
        .contains("spec.daemonsets.annotations");
  }

  @Test
  void planDryRunsEveryObjectAndNamesTheFieldTheServerRefuses(
      KubernetesClient client, ControlPlane cp) throws Exception {
    String ns = ControlPlaneExtension.newNamespace(client, "dryrun-live");
    Path policy = dir.resolve("sample.yaml");
    try (InputStream in = Policies.class.getResourceAsStream(Policies.SAMPLE)) {
      Files.write(policy, in.readAllBytes());
    }
    // plan --kubeconfig exits 0 only when the server accepts every object in a dry run ...
    assertThat(LivePlan.run(cp, policy, ns)).contains("to create");
    // ... and the dry run stores nothing.
    assertThat(client.apps().daemonSets().inNamespace(ns).list().getItems()).isEmpty();

    // An object the server refuses (as a policy that slipped past offline validation would
    // render it) is reported in one short line: the object, the field, the server's reason.
    OperatorConfig config = OperatorConfig.fromEnv(Map.of("OPERATOR_NAMESPACE", ns));
    List<RenderedOperand> rendered =
        Operands.renderAll(Policies.sample(), NodeFacts.of(List.of(), "v1.36.3", false), config);
    DaemonSet ds =
        rendered.stream()
            .flatMap(o -> o.objects().stream())
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    ds.getSpec()
        .getTemplate()
        .getSpec()
        .getTolerations()
        .add(
            0,
            new TolerationBuilder()
                .withKey("a")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .withTolerationSeconds(30L)
                .build());
    List<ServerRejection> refused =
        OperandApplier.dryRun(client, rendered, ManagedObjects.served(Set.of(), null), false);
    assertThat(refused).hasSize(1);
    String message = refused.get(0).getMessage();
    assertThat(message)
        .startsWith("DaemonSet " + ns + "/" + ds.getMetadata().getName() + ": ")
        .contains("spec.template.spec.tolerations[0].effect")
        .contains("NoExecute");
    assertThat(message.length()).isLessThan(400);
    for (HasMetadata o : rendered.stream().flatMap(r -> r.objects().stream()).toList()) {
      assertThat(
              o.getMetadata().getNamespace() == null || o.getMetadata().getNamespace().equals(ns))
          .isTrue();
    }
  }

  private String planOffline(Path policy) {
    PlanCommand command = new PlanCommand();
    command.env = Map.of();
    CommandLine cmd = new CommandLine(command);
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(new StringWriter()));
    cmd.setErr(new PrintWriter(err));
    int rc = cmd.execute("-f", policy.toString());
    assertThat(rc).as(err.toString()).isEqualTo(2);
    return err.toString();
  }

  private Path policyWith(ObjectNode sample, String path, JsonNode value) throws Exception {
    ObjectNode policy = sample.deepCopy();
    set(policy, path, value);
    Path file = Files.createTempFile(dir, "policy", ".yaml");
    Files.writeString(file, YAML.writeValueAsString(policy));
    return file;
  }

  /**
   * Sets a dotted path ({@code a.b[0].c}, {@code \.} for a dot in a key), creating what is missing.
   */
  static void set(ObjectNode root, String path, JsonNode value) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '\\' && i + 1 < path.length()) {
        part.append(path.charAt(++i));
      } else if (c == '.') {
        parts.add(part.toString());
        part.setLength(0);
      } else {
        part.append(c);
      }
    }
    parts.add(part.toString());
    JsonNode node = root;
    for (int i = 0; i < parts.size(); i++) {
      String p = parts.get(i);
      boolean last = i == parts.size() - 1;
      int index = -1;
      if (p.endsWith("]")) {
        index = Integer.parseInt(p.substring(p.indexOf('[') + 1, p.length() - 1));
        p = p.substring(0, p.indexOf('['));
      }
      ObjectNode parent = (ObjectNode) node;
      if (index < 0) {
        if (last) {
          parent.set(p, value);
          return;
        }
        if (!(parent.get(p) instanceof ObjectNode)) {
          parent.set(p, NODES.objectNode());
        }
        node = parent.get(p);
      } else {
        if (!(parent.get(p) instanceof ArrayNode)) {
          parent.set(p, NODES.arrayNode());
        }
        ArrayNode list = (ArrayNode) parent.get(p);
        while (list.size() <= index) {
          list.add(last ? NODES.nullNode() : NODES.objectNode());
        }
        if (last) {
          list.set(index, value);
          return;
        }
        if (!(list.get(index) instanceof ObjectNode)) {
          list.set(index, NODES.objectNode());
        }
        node = list.get(index);
      }
    }
  }
}
