package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The policy's inline MIG geometry ({@code spec.migManager.configs}) on a real API server: a valid
 * one reaches {@code default-mig-parted-config}; an invalid one (too many slices, an unknown
 * profile, a malformed or mismatched device-filter) becomes the ClusterPolicy's Ready=False
 * condition naming the config, the GPU and why, before any node is touched: the ConfigMap, the
 * DaemonSets and the nodes' {@code nvidia.com/mig.config*} labels are not written. Fixing the
 * policy converges. The steps build on each other, in order.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigInlineConfigIT {
  static final String POLICY = "cluster-policy";
  static final String CONFIG_MAP = "default-mig-parted-config";

  /** A MIG-capable node the operator gives its default layout. */
  static final String FRESH = "mig-gpu-a";

  /** A node already on the inline layout, as the MIG manager left it. */
  static final String APPLIED = "mig-gpu-b";

  static final String VALID_TRAINING =
      "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
          + "\"device-filter\":[\"0x233010DE\"],\"mig-devices\":{\"3g.40gb\":2}}]}";

  static OperatorFixture it;
  static KubernetesClient admin;

  @BeforeAll
  static void start(ControlPlane controlPlane) throws Exception {
    it = OperatorFixture.start(controlPlane);
    admin = it.admin();
    Map<String, String> mig = new HashMap<>(ItCluster.NFD_GPU);
    mig.put("nvidia.com/mig.capable", "true");
    admin.nodes().resource(ItCluster.node(FRESH, mig)).create();
    Map<String, String> applied = new HashMap<>(mig);
    applied.put("nvidia.com/mig.config", "training");
    applied.put("nvidia.com/mig.config.state", "success");
    admin.nodes().resource(ItCluster.node(APPLIED, applied)).create();
  }

  @AfterAll
  static void stop() {
    if (it != null) {
      it.operator().close();
    }
    admin.resources(ClusterPolicy.class).delete();
    admin.nodes().withName(FRESH).delete();
    admin.nodes().withName(APPLIED).delete();
  }

  static ConfigMap configMap() {
    return admin.configMaps().inNamespace(it.ns()).withName(CONFIG_MAP).get();
  }

  static Map<String, String> daemonSetVersions() {
    return admin.apps().daemonSets().inNamespace(it.ns()).list().getItems().stream()
        .collect(
            Collectors.toMap(
                d -> d.getMetadata().getName(), d -> d.getMetadata().getResourceVersion()));
  }

  /** Every node's {@code nvidia.com/mig.config*} labels. */
  static Map<String, Map<String, String>> migLabels() {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (String n : List.of(FRESH, APPLIED)) {
      Node node = admin.nodes().withName(n).get();
      Map<String, String> mine = new TreeMap<>();
      node.getMetadata()
          .getLabels()
          .forEach(
              (k, v) -> {
                if (k.startsWith("nvidia.com/mig.config")) {
                  mine.put(k, v);
                }
              });
      out.put(n, mine);
    }
    return out;
  }

  static void patchConfigs(String configsJson) {
    admin
        .resources(ClusterPolicy.class)
        .withName(POLICY)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"migManager\":{\"configs\":" + configsJson + "}}}");
  }

  @Test
  @Order(1)
  void aValidInlineConfigReachesTheConfigMap() {
    ClusterPolicy p = ItCluster.samplePolicy(POLICY);
    admin.resource(p).create();
    patchConfigs(VALID_TRAINING);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ConfigMap cm = configMap();
              assertThat(cm).isNotNull();
              assertThat(cm.getData().get("config.yaml"))
                  .contains("  training:\n")
                  .contains("0x233010DE")
                  .contains("  all-1g.10gb:");
              assertThat(migLabels().get(FRESH))
                  .containsEntry("nvidia.com/mig.config", "all-disabled");
              assertThat(daemonSetVersions()).containsKey("nvidia-mig-manager");
              ClusterPolicy now = admin.resources(ClusterPolicy.class).withName(POLICY).get();
              // Not yet written is a state to wait out (an NPE would end the wait at once).
              assertThat(now.getStatus()).as("status").isNotNull();
              assertThat(now.getStatus().observedGeneration)
                  .isEqualTo(now.getMetadata().getGeneration());
            });
  }

  record Case(String why, String configsJson, List<String> messageParts) {}

  @Test
  @Order(2)
  void anInvalidInlineConfigIsAConditionAndTouchesNothing() throws Exception {
    List<Case> cases =
        List.of(
            new Case(
                "more of a profile than one GPU holds",
                "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
                    + "\"device-filter\":[\"0x233010DE\"],\"mig-devices\":{\"3g.40gb\":3}}]}",
                List.of(
                    "spec.migManager.configs.training",
                    "device-filter 0x233010DE",
                    "3g.40gb ×3 exceeds its maximum of 2 per GPU on H100-SXM5-80GB")),
            new Case(
                "a profile the GPU does not have",
                "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
                    + "\"device-filter\":[\"0x233010DE\"],\"mig-devices\":{\"5g.50gb\":1}}]}",
                List.of("spec.migManager.configs.training", "5g.50gb", "H100-SXM5-80GB")),
            new Case(
                "a device-filter that is no PCI id",
                "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
                    + "\"device-filter\":[\"H100\"],\"mig-devices\":{\"1g.10gb\":7}}]}",
                List.of("spec.migManager.configs", "device-filter: 'H100'", "0x233010DE")),
            new Case(
                "a device-filter naming a GPU the profile does not fit (A100 40GB)",
                "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
                    + "\"device-filter\":[\"0x20B010DE\"],\"mig-devices\":{\"1g.10gb\":7}}]}",
                List.of("spec.migManager.configs.training", "device-filter 0x20B010DE", "A100")));

    String configBefore = configMap().getMetadata().getResourceVersion();
    String dataBefore = configMap().getData().get("config.yaml");
    Map<String, String> daemonSetsBefore = daemonSetVersions();
    Map<String, Map<String, String>> labelsBefore = migLabels();
    for (Case c : cases) {
      long mark = it.audit().mark();
      patchConfigs(c.configsJson());
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                var ready = PolicyStatusModel.ready(reconciledPolicy().getStatus());
                assertThat(ready.getStatus()).as(c.why()).isEqualTo("False");
                assertThat(ready.getReason()).isEqualTo(Conditions.RECONCILE_FAILED);
                for (String part : c.messageParts()) {
                  assertThat(ready.getMessage()).as(c.why()).contains(part);
                }
              });
      // Let any node or operand pass that would follow run.
      Thread.sleep(2_000);
      assertThat(configMap().getMetadata().getResourceVersion())
          .as(c.why())
          .isEqualTo(configBefore);
      assertThat(configMap().getData().get("config.yaml")).isEqualTo(dataBefore);
      assertThat(daemonSetVersions()).as(c.why()).isEqualTo(daemonSetsBefore);
      assertThat(migLabels()).as(c.why()).isEqualTo(labelsBefore);
      // The operator's only writes: the policy's status and the Warning event.
      assertThat(it.audit().writesSince(mark, it.operator().userAgent))
          .as(c.why())
          .isNotEmpty()
          .allSatisfy(
              w ->
                  assertThat(
                          (w.resource().equals("clusterpolicies") && "status".equals(w.sub()))
                              || w.resource().equals("events"))
                      .as(w.toString())
                      .isTrue());
    }
    assertThat(admin.v1().events().inNamespace(ReconcilerKeys.EVENTS_NAMESPACE).list().getItems())
        .anyMatch(
            e ->
                e.getInvolvedObject().getName().equals(POLICY)
                    && e.getType().equals("Warning")
                    && e.getMessage().contains("spec.migManager.configs.training"));
  }

  @Test
  @Order(3)
  void fixingThePolicyConverges() {
    patchConfigs(
        "{\"training\":[{\"devices\":\"all\",\"mig-enabled\":true,"
            + "\"device-filter\":[\"0x233010DE\"],\"mig-devices\":{\"2g.20gb\":3}}]}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(PolicyStatusModel.ready(reconciledPolicy().getStatus()).getReason())
                  .isNotEqualTo(Conditions.RECONCILE_FAILED);
              assertThat(configMap().getData().get("config.yaml")).contains("\"2g.20gb\": 3");
            });
    // The node already on the layout keeps it; the MIG manager re-applies the new geometry.
    assertThat(migLabels().get(APPLIED))
        .containsEntry("nvidia.com/mig.config", "training")
        .containsEntry("nvidia.com/mig.config.state", "success");
  }

  /** The policy, asserting that its status is of its latest generation. */
  static ClusterPolicy reconciledPolicy() {
    ClusterPolicy p = admin.resources(ClusterPolicy.class).withName(POLICY).get();
    assertThat(p.getStatus()).as("status").isNotNull();
    assertThat(p.getStatus().observedGeneration).isEqualTo(p.getMetadata().getGeneration());
    return p;
  }
}
