package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.labels.NodeLabelRules;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.status.Conditions;
import io.gpuoperator.operator.status.PolicyStatusModel;
import io.gpuoperator.sim.controlplane.AuditLog;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator (real operand models, real node label rules) against a real API server: the
 * documentation sample policy drives operands and node labels, status follows DaemonSet readiness,
 * an idle operator writes nothing, operands are removed and recreated, a user's pin survives, an
 * invalid policy changes nothing, and a second policy is ignored. The steps build on each other
 * (one operator, one cluster), in order.
 */
@ExtendWith(ControlPlaneExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterPolicyReconcilerIT {
  static final String POLICY = "cluster-policy";
  static final List<String> GPU_NODES = List.of("it-gpu-a", "it-gpu-b");
  static final String CPU_NODE = "it-cpu-c";

  static ControlPlane cp;
  static KubernetesClient admin;
  static String ns;
  static OperatorInstance operator;
  static AuditLog audit;

  @BeforeAll
  static void start(ControlPlane controlPlane) throws Exception {
    OperatorFixture it = OperatorFixture.start(controlPlane);
    cp = it.cp();
    admin = it.admin();
    ns = it.ns();
    audit = it.audit();
    operator = it.operator();
    for (String n : GPU_NODES) {
      admin.nodes().resource(ItCluster.node(n, ItCluster.NFD_GPU)).create();
    }
    admin.nodes().resource(ItCluster.node(CPU_NODE, ItCluster.NFD_CPU)).create();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    admin.resources(ClusterPolicy.class).delete();
    for (String n : GPU_NODES) {
      admin.nodes().withName(n).delete();
    }
    admin.nodes().withName(CPU_NODE).delete();
  }

  static ClusterPolicy policy() {
    return admin.resources(ClusterPolicy.class).withName(POLICY).get();
  }

  static List<DaemonSet> daemonSets() {
    return admin.apps().daemonSets().inNamespace(ns).list().getItems();
  }

  static DaemonSet daemonSet(String name) {
    return admin.apps().daemonSets().inNamespace(ns).withName(name).get();
  }

  /** Each DaemonSet's resourceVersion, by name: equal maps mean nothing was written. */
  static Map<String, String> daemonSetVersions() {
    return daemonSets().stream()
        .collect(
            Collectors.toMap(
                d -> d.getMetadata().getName(), d -> d.getMetadata().getResourceVersion()));
  }

  /** The device plugin's container, as last written. */
  static io.fabric8.kubernetes.api.model.Container devicePluginContainer() {
    return daemonSet("nvidia-device-plugin-daemonset")
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0);
  }

  static List<String> notReady(ClusterPolicy p) {
    return p.getStatus() == null || p.getStatus().operands == null
        ? List.of()
        : p.getStatus().operands.stream()
            .filter(o -> o.state != State.READY)
            .map(o -> o.name)
            .collect(Collectors.toList());
  }

  static void patchPolicy(String mergePatch) {
    patchPolicy(POLICY, mergePatch);
  }

  static void patchPolicy(String name, String mergePatch) {
    admin
        .resources(ClusterPolicy.class)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  /** Waits until every GPU node passes the check. */
  static void awaitEachGpuNode(ThrowingConsumer<String> check) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(GPU_NODES).allSatisfy(check));
  }

  @Test
  @Order(1)
  void samplePolicyCreatesOperandsLabelsNodesAndIsReadyOnlyWhenDaemonSetsAre() throws Exception {
    admin.resource(ItCluster.samplePolicy(POLICY)).create();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(daemonSets())
                    .extracting(d -> d.getMetadata().getName())
                    .containsExactlyInAnyOrderElementsOf(Policies.DEFAULT_DAEMONSETS));
    DaemonSet driver = daemonSet("nvidia-driver-daemonset");
    assertThat(driver.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo(POLICY));
    assertThat(driver.getMetadata().getAnnotations()).containsKey(ManagedObjects.HASH_ANNOTATION);
    assertThat(admin.apps().daemonSets().inNamespace(ns).withName("nvidia-dcgm").get()).isNull();
    assertThat(admin.serviceAccounts().inNamespace(ns).withName("nvidia-driver").get()).isNotNull();
    // Operand RBAC ships with the chart (OperandRbac): the operator never writes RBAC.
    assertThat(admin.rbac().clusterRoles().withName("nvidia-device-plugin").get()).isNull();
    assertThat(
            admin
                .resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class)
                .withName("nvidia")
                .get())
        .isNotNull();
    assertThat(admin.configMaps().inNamespace(ns).withName("default-mig-parted-config").get())
        .isNotNull();

    awaitEachGpuNode(
        n ->
            assertThat(admin.nodes().withName(n).get().getMetadata().getLabels())
                .containsEntry("nvidia.com/gpu.present", "true")
                .containsEntry("nvidia.com/gpu.deploy.driver", "true")
                .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true"));
    // As the original: the sample gives no spec.nodeTaint, so no GPU node is tainted.
    assertThat(GPU_NODES).allSatisfy(n -> assertThat(gpuTaints(n)).as(n).isEmpty());
    Node cpu = admin.nodes().withName(CPU_NODE).get();
    assertThat(cpu.getMetadata().getLabels().keySet()).noneMatch(k -> k.startsWith("nvidia.com/"));
    // The API server's TaintNodesByCondition plugin adds node.kubernetes.io/not-ready; ours: none.
    assertThat(cpu.getSpec().getTaints()).noneMatch(t -> t.getKey().startsWith("nvidia.com/"));

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ClusterPolicy p = policy();
              assertThat(p.getStatus()).isNotNull();
              assertThat(p.getStatus().state).isEqualTo(State.NOT_READY);
              assertThat(PolicyStatusModel.ready(p.getStatus()).getReason())
                  .isEqualTo(Conditions.OPERAND_NOT_READY);
              assertThat(notReady(p))
                  .containsExactlyInAnyOrderElementsOf(Policies.DEFAULT_DAEMONSET_OPERANDS);
            });

    // The driver is OnDelete: a status saying 2/2 is not enough without ready pods of the newest
    // ControllerRevision.
    ItCluster.markStatus(admin, daemonSet("nvidia-driver-daemonset"), GPU_NODES.size());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(policy().getStatus().operands)
                    .filteredOn(o -> o.name.equals("driver"))
                    .singleElement()
                    .satisfies(o -> assertThat(o.reason).contains("ControllerRevision")));

    // Every DaemonSet but the device plugin's ready: the status names only that one.
    for (String name : Policies.DEFAULT_DAEMONSETS) {
      if (!name.equals("nvidia-device-plugin-daemonset")) {
        ItCluster.markReady(admin, daemonSet(name), GPU_NODES);
      }
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(notReady(policy())).containsExactly("device-plugin"));
    assertThat(policy().getStatus().state).isEqualTo(State.NOT_READY);
    assertThat(PolicyStatusModel.ready(policy().getStatus()).getMessage())
        .contains("device-plugin");

    ItCluster.markReady(admin, daemonSet("nvidia-device-plugin-daemonset"), GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(policy().getStatus().state).isEqualTo(State.READY));
    ClusterPolicy ready = policy();
    assertThat(ready.getStatus().observedGeneration).isEqualTo(ready.getMetadata().getGeneration());
    assertThat(ready.getStatus().namespace).isEqualTo(ns);
    assertThat(PolicyStatusModel.ready(ready.getStatus()).getReason())
        .isEqualTo(Conditions.RECONCILED);
    // The sample sets nothing this operator ignores (driver.upgradePolicy.autoUpgrade is acted on).
    assertThat(ready.getStatus().conditions)
        .noneMatch(c -> c.getType().equals(Conditions.IGNORED_FIELDS));
    assertThat(ready.getStatus().operands)
        .filteredOn(o -> o.name.equals("driver"))
        .singleElement()
        .satisfies(o -> assertThat(o.nodesReady).isEqualTo(2))
        .satisfies(o -> assertThat(o.nodesDesired).isEqualTo(2));

    String metrics = get("http://127.0.0.1:" + operator.operator.metricsPort() + "/metrics");
    assertThat(metrics)
        .contains("gpu_operator_gpu_nodes_total 2.0")
        .contains("gpu_operator_reconciliation_status 1.0")
        .contains("gpu_operator_reconciliation_has_nfd_labels 1.0")
        .contains("gpu_operator_reconciliation_total")
        .containsPattern("gpu_operator_reconciliation_last_success_ts_seconds \\d\\.\\d+E9")
        .containsPattern(
            "operator_sdk_reconciliations_started_total\\{controller=\"clusterpolicy\"} [1-9]")
        .containsPattern(
            "operator_sdk_reconciliations_success_total\\{controller=\"nodelabels\"} [1-9]")
        .contains("jvm_threads_current");
    assertThat(get("http://127.0.0.1:" + operator.operator.healthPort() + "/healthz"))
        .isEqualTo("ok");
    assertThat(get("http://127.0.0.1:" + operator.operator.healthPort() + "/readyz"))
        .isEqualTo("ok");
  }

  @Test
  @Order(2)
  void idleOperatorWritesNothingFor60Seconds() throws Exception {
    long mark = audit.mark();
    Thread.sleep(60_000);
    assertThat(audit.writesSince(mark, operator.userAgent)).isEmpty();
  }

  @Test
  @Order(3)
  void aRestartedOperatorReconcilesEverythingAndWritesNothing() throws Exception {
    long mark = audit.mark();
    operator.close();
    // Same identity: it holds the Lease already, so it leads again at once.
    operator = OperatorInstance.on(cp, ns, "main").start();
    await().atMost(Duration.ofSeconds(30)).until(operator.operator::isLeader);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> operator.operator.metrics().reconciliations() > 0);
    Thread.sleep(5_000);
    assertThat(audit.writesSince(mark, operator.userAgent)).isEmpty();
    assertThat(policy().getStatus().state).isEqualTo(State.READY);
  }

  @Test
  @Order(4)
  void disablingAnOperandRemovesItsObjectsAndReenablingRecreatesThem() {
    patchPolicy("{\"spec\":{\"gfd\":{\"enabled\":false}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(daemonSet("gpu-feature-discovery")).isNull();
              assertThat(
                      admin
                          .serviceAccounts()
                          .inNamespace(ns)
                          .withName("nvidia-gpu-feature-discovery")
                          .get())
                  .isNull();
              assertThat(policy().getStatus().operands)
                  .extracting(o -> o.name)
                  .doesNotContain("gpu-feature-discovery");
            });
    // The other operands were not touched.
    assertThat(daemonSet("nvidia-device-plugin-daemonset")).isNotNull();

    patchPolicy("{\"spec\":{\"gfd\":{\"enabled\":true}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(daemonSet("gpu-feature-discovery")).isNotNull();
              assertThat(notReady(policy())).containsExactly("gpu-feature-discovery");
            });
    ItCluster.markReady(admin, daemonSet("gpu-feature-discovery"), GPU_NODES);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(policy().getStatus().state).isEqualTo(State.READY));
  }

  @Test
  @Order(5)
  void aUsersDeployPinSurvivesReconciliation() throws Exception {
    admin
        .nodes()
        .withName("it-gpu-b")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"nvidia.com/gpu.deploy.device-plugin\":\"false\"}}}");
    // A policy change re-queues every node.
    patchPolicy("{\"spec\":{\"devicePlugin\":{\"env\":[{\"name\":\"IT\",\"value\":\"1\"}]}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(devicePluginContainer().getEnv())
                    .anyMatch(e -> e.getName().equals("IT")));
    Thread.sleep(3_000);
    assertThat(admin.nodes().withName("it-gpu-b").get().getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "false");
    assertThat(admin.nodes().withName("it-gpu-a").get().getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
    ItCluster.markReady(admin, daemonSet("nvidia-device-plugin-daemonset"), GPU_NODES);
  }

  @Test
  @Order(6)
  void anInvalidPolicyIsReportedAndLeavesTheDaemonSetsAlone() throws Exception {
    Map<String, String> before = daemonSetVersions();
    // A half-set image: a rule of the operator's own (for deployed operands only), not a CEL rule
    // (those the API server enforces: StrictCrdIT).
    patchPolicy("{\"spec\":{\"devicePlugin\":{\"repository\":\"\",\"version\":\"v9.9.9\"}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ClusterPolicy p = policy();
              var ready = PolicyStatusModel.ready(p.getStatus());
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo(Conditions.RECONCILE_FAILED);
              assertThat(ready.getMessage()).contains("spec.devicePlugin.repository");
              assertThat(p.getStatus().observedGeneration)
                  .isEqualTo(p.getMetadata().getGeneration());
            });
    Thread.sleep(2_000);
    Map<String, String> after = daemonSetVersions();
    assertThat(after).isEqualTo(before);
    assertThat(admin.v1().events().inNamespace(ReconcilerKeys.EVENTS_NAMESPACE).list().getItems())
        .anyMatch(
            e ->
                e.getInvolvedObject().getName().equals(POLICY)
                    && e.getType().equals("Warning")
                    && e.getMessage().contains("spec.devicePlugin.repository"));

    // Fixing the policy applies the pending change again.
    patchPolicy("{\"spec\":{\"devicePlugin\":{\"repository\":\"nvcr.io/nvidia\"}}}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(devicePluginContainer().getImage()).endsWith(":v9.9.9"));
  }

  @Test
  @Order(7)
  void eachPassWritesTheStatusOnce() throws Exception {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Objects.equals(
                    policy().getStatus().observedGeneration,
                    policy().getMetadata().getGeneration()));
    Thread.sleep(2_000);
    State before = policy().getStatus().state;
    // An invalid spec and its exact undo: each is one pass with something new to say (and
    // follow-up passes, woken by that status write, with nothing new), whatever the pass found.
    String[] changes = {
      "{\"spec\":{\"devicePlugin\":{\"repository\":\"\"}}}",
      "{\"spec\":{\"devicePlugin\":{\"repository\":\"nvcr.io/nvidia\"}}}"
    };
    State[] expected = {State.NOT_READY, before};
    for (int i = 0; i < changes.length; i++) {
      long mark = audit.mark();
      long passesBefore = operator.operator.metrics().reconciliations();
      patchPolicy(changes[i]);
      long generation = policy().getMetadata().getGeneration();
      State want = expected[i];
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                ClusterPolicy p = policy();
                return Objects.equals(p.getStatus().observedGeneration, generation)
                    && p.getStatus().state == want;
              });
      Thread.sleep(3_000);
      long passes = operator.operator.metrics().reconciliations() - passesBefore;
      List<AuditLog.Write> statusWrites =
          audit.writesSince(mark, operator.userAgent).stream()
              .filter(w -> w.resource().equals("clusterpolicies") && "status".equals(w.sub()))
              .toList();
      assertThat(passes).as("passes after %s", changes[i]).isPositive();
      assertThat(statusWrites).as("status writes after %s", changes[i]).hasSize(1);
    }
  }

  @Test
  @Order(8)
  void aSecondPolicyIsIgnoredUntilTheActiveOneIsDeleted() {
    admin.resource(ItCluster.samplePolicy("zz-second-policy")).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ClusterPolicy second =
                  admin.resources(ClusterPolicy.class).withName("zz-second-policy").get();
              assertThat(second.getStatus()).isNotNull();
              assertThat(second.getStatus().state).isEqualTo(State.IGNORED);
              assertThat(PolicyStatusModel.ready(second.getStatus()).getMessage()).contains(POLICY);
            });
    assertThat(daemonSet("nvidia-driver-daemonset").getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo(POLICY));

    // The active policy goes away: the other one takes over the operands.
    admin.resources(ClusterPolicy.class).withName(POLICY).delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              ClusterPolicy second =
                  admin.resources(ClusterPolicy.class).withName("zz-second-policy").get();
              assertThat(second.getStatus().state).isNotEqualTo(State.IGNORED);
              assertThat(daemonSets())
                  .extracting(d -> d.getMetadata().getName())
                  .containsExactlyInAnyOrderElementsOf(Policies.DEFAULT_DAEMONSETS);
              assertThat(daemonSet("nvidia-driver-daemonset").getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(o -> assertThat(o.getName()).isEqualTo("zz-second-policy"));
            });
  }

  @Test
  @Order(9)
  void serviceMonitorsAppearOnceTheirCrdIsInstalled() {
    var crd =
        new io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder()
            .withNewMetadata()
            .withName(ManagedObjects.SERVICE_MONITOR_CRD)
            .endMetadata()
            .withNewSpec()
            .withGroup("monitoring.coreos.com")
            .withScope("Namespaced")
            .withNewNames()
            .withKind("ServiceMonitor")
            .withPlural("servicemonitors")
            .withSingular("servicemonitor")
            .withListKind("ServiceMonitorList")
            .endNames()
            .addNewVersion()
            .withName("v1")
            .withServed(true)
            .withStorage(true)
            .withNewSchema()
            .withNewOpenAPIV3Schema()
            .withType("object")
            .withXKubernetesPreserveUnknownFields(true)
            .endOpenAPIV3Schema()
            .endSchema()
            .endVersion()
            .endSpec()
            .build();
    admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          admin
                              .genericKubernetesResources(
                                  ManagedObjects.MONITORING_API_VERSION,
                                  ManagedObjects.SERVICE_MONITOR)
                              .inNamespace(ns)
                              .withName("gpu-operator")
                              .get())
                      .isNotNull());
    } finally {
      admin
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(ManagedObjects.SERVICE_MONITOR_CRD)
          .delete();
    }
  }

  /** The policy active since {@link #aSecondPolicyIsIgnoredUntilTheActiveOneIsDeleted}. */
  static final String SECOND = "zz-second-policy";

  static final String OURS = "nvidia.com/gpu=present:NoSchedule";

  @Test
  @Order(10)
  void nodeTaintTaintsGpuNodesAndRemovingItTakesBackOnlyTheTaintsTheOperatorAdded() {
    // A taint with the GPU key set by hand on the CPU node, before the policy asks for any.
    admin
        .nodes()
        .withName(CPU_NODE)
        .edit(
            n -> {
              addTaint(n, taint("nvidia.com/gpu", "manual", "NoSchedule"));
              return n;
            });
    patchPolicy(SECOND, "{\"spec\":{\"nodeTaint\":{}}}");
    awaitEachGpuNode(
        n -> {
          assertThat(gpuTaints(n)).as(n).extracting(this::format).containsExactly(OURS);
          assertThat(annotations(n)).containsEntry(Labels.TAINT_OWNER, OURS);
        });
    // Not a GPU node and not tainted by the operator: the hand-set taint stays, unrecorded.
    assertThat(gpuTaints(CPU_NODE))
        .extracting(this::format)
        .containsExactly("nvidia.com/gpu=manual:NoSchedule");
    assertThat(annotations(CPU_NODE)).doesNotContainKey(Labels.TAINT_OWNER);

    // nodeTaint removed: the operator's taints and records go.
    patchPolicy(SECOND, "{\"spec\":{\"nodeTaint\":null}}");
    awaitEachGpuNode(
        n -> {
          assertThat(gpuTaints(n)).as(n).isEmpty();
          assertThat(annotations(n)).doesNotContainKey(Labels.TAINT_OWNER);
        });

    // A user taints a GPU node by hand (as under the original): the operator leaves it. Its
    // pass over the node is seen by a deploy label it puts back.
    String gpu = GPU_NODES.get(0);
    admin
        .nodes()
        .withName(gpu)
        .edit(
            n -> {
              addTaint(n, taint("nvidia.com/gpu", "present", "NoSchedule"));
              n.getMetadata().getLabels().remove("nvidia.com/gpu.deploy.dcgm-exporter");
              return n;
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(admin.nodes().withName(gpu).get().getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "true"));
    assertThat(gpuTaints(gpu)).extracting(this::format).containsExactly(OURS);
    assertThat(annotations(gpu)).doesNotContainKey(Labels.TAINT_OWNER);
  }

  @Test
  @Order(11)
  void deletingEveryPolicyRemovesTheGpuTaintItAddedAndKeepsTheLabels() {
    // nodeTaint again: the operator taints the GPU nodes and records it (adopting the hand-set
    // taint of the step before, which the policy now names).
    patchPolicy(SECOND, "{\"spec\":{\"nodeTaint\":{}}}");
    String other = GPU_NODES.get(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(annotations(other)).containsEntry(Labels.TAINT_OWNER, OURS));
    admin.resources(ClusterPolicy.class).delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(gpuTaints(other)).isEmpty();
              assertThat(annotations(other)).doesNotContainKey(Labels.TAINT_OWNER);
            });
    // The CPU node's hand-set taint was never the operator's.
    assertThat(gpuTaints(CPU_NODE)).hasSize(1);
    // The original's labels stay, as under the original when its policy is deleted.
    assertThat(admin.nodes().withName(other).get().getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.present", "true");
  }

  static io.fabric8.kubernetes.api.model.Taint taint(String key, String value, String effect) {
    return new io.fabric8.kubernetes.api.model.TaintBuilder()
        .withKey(key)
        .withValue(value)
        .withEffect(effect)
        .build();
  }

  static void addTaint(Node n, io.fabric8.kubernetes.api.model.Taint t) {
    List<io.fabric8.kubernetes.api.model.Taint> taints =
        n.getSpec().getTaints() == null
            ? new java.util.ArrayList<>()
            : new java.util.ArrayList<>(n.getSpec().getTaints());
    taints.add(t);
    n.getSpec().setTaints(taints);
  }

  String format(io.fabric8.kubernetes.api.model.Taint t) {
    return NodeLabelRules.format(t);
  }

  static Map<String, String> annotations(String node) {
    Map<String, String> a = admin.nodes().withName(node).get().getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  static List<io.fabric8.kubernetes.api.model.Taint> gpuTaints(String node) {
    var taints = admin.nodes().withName(node).get().getSpec().getTaints();
    return taints == null
        ? List.of()
        : taints.stream().filter(t -> t.getKey().equals("nvidia.com/gpu")).toList();
  }

  static String get(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
