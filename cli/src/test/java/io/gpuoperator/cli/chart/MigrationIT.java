package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.cli.simulate.ClusterOnNodes;
import io.gpuoperator.cli.simulate.SimulationStatus;
import io.gpuoperator.cli.simulate.WorkloadPods;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32 point 4: a cluster run by NVIDIA's original operator switches to this project and back
 * without disturbing a GPU workload. The original (built from its Go module by {@code
 * scripts/original-operator.sh}) runs as a process against the simulator's API server, as it runs
 * without its chart: its CRDs, a ClusterPolicy like its chart's default, its operands rendered from
 * its own manifests and run by the simulated kubelets under its container contract. GPU pods run.
 * Then the original stops and this project's chart is installed into the same namespace with {@code
 * clusterPolicy.deployCR=false}, so it adopts the existing policy; then the chart is uninstalled
 * and the original starts again. After each switch: the policy's spec is what the user wrote, no
 * GPU pod was evicted, deleted or restarted (uid and restart count, the audit log's evictions and
 * deletions), each node keeps its nvidia.com labels but those listed in {@link #OWNED_DIFFERENTLY}
 * (and in docs/migration.md), the operand DaemonSets are the new operator's, and the cluster is
 * ready.
 */
class MigrationIT {
  private static final String NS = HelmChart.NAMESPACE;
  private static final String POLICY = "cluster-policy";
  private static final Path DOC = Path.of("..", "docs", "migration.md");
  private static final ResourceDefinitionContext CLUSTER_POLICIES =
      ResourceDefinitionContext.fromResourceType(ClusterPolicy.class);

  /**
   * Node labels under nvidia.com/ that the two operators write differently (documented in
   * docs/migration.md, which this test checks names each).
   */
  static final List<String> OWNED_DIFFERENTLY =
      List.of("nvidia.com/gfd.timestamp", "nvidia.com/gpu.deploy.client");

  /** A policy as the original chart renders from its default values (images, no ServiceMonitor). */
  static final String POLICY_YAML =
      """
      apiVersion: nvidia.com/v1
      kind: ClusterPolicy
      metadata:
        name: cluster-policy
      spec:
        operator:
          defaultRuntime: containerd
          runtimeClass: nvidia
        daemonsets:
          updateStrategy: RollingUpdate
          rollingUpdate:
            maxUnavailable: "1"
        validator:
          repository: nvcr.io/nvidia/cloud-native
          image: gpu-operator-validator
          version: v25.3.4
        mig:
          strategy: single
        driver:
          enabled: true
          repository: nvcr.io/nvidia
          image: driver
          version: "580.82.07"
          manager:
            repository: nvcr.io/nvidia/cloud-native
            image: k8s-driver-manager
            version: v0.8.1
          upgradePolicy:
            autoUpgrade: false
        toolkit:
          enabled: true
          repository: nvcr.io/nvidia/k8s
          image: container-toolkit
          version: v1.17.8-ubuntu20.04
        devicePlugin:
          enabled: true
          repository: nvcr.io/nvidia
          image: k8s-device-plugin
          version: v0.17.4
        dcgm:
          enabled: false
        dcgmExporter:
          enabled: true
          repository: nvcr.io/nvidia/k8s
          image: dcgm-exporter
          version: 4.3.1-4.4.0-ubuntu22.04
          serviceMonitor:
            enabled: false
        gfd:
          enabled: true
          repository: nvcr.io/nvidia
          image: k8s-device-plugin
          version: v0.17.4
        migManager:
          enabled: true
          repository: nvcr.io/nvidia/cloud-native
          image: k8s-mig-manager
          version: v0.12.3-ubuntu20.04
        nodeStatusExporter:
          enabled: false
      """;

  private static final Path VALUES = Path.of("src/test/resources/chart/simulator-values.yaml");
  private static final Map<String, Object> SET = Map.of("clusterPolicy.deployCR", "false");

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void theOriginalToOursAndBackKeepsThePolicyTheLabelsAndTheGpuPods(@TempDir Path work)
      throws Exception {
    String doc = Files.readString(DOC);
    assertThat(OWNED_DIFFERENTLY).allMatch(doc::contains, "named in " + DOC);
    String why = OriginalOperator.unavailable();
    // A dependency missing in CI is a failure, not a skip: a lost install step must not hide.
    if (why != null && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(why + " (CI=true: a missing test dependency is a failure)");
    }
    assumeTrue(why == null, why);
    List<NodeDescription> nodes =
        List.of(
            NodeDescription.gpuNode("gpu-a", "L4", 2),
            NodeDescription.gpuNode("gpu-b", "H100-SXM5-80GB", 8),
            NodeDescription.cpuNode("cpu-a"));
    try (ClusterOnNodes c = ClusterOnNodes.withScheduler(nodes)) {
      ControlPlane cp = c.cp();
      KubernetesClient admin = cp.client();
      ControlPlaneExtension.createNamespace(
          admin, NS, Map.of("pod-security.kubernetes.io/enforce", "privileged"));
      applyOriginalCrds(admin);
      admin
          .genericKubernetesResources(CLUSTER_POLICIES)
          .resource(Serialization.unmarshal(POLICY_YAML, GenericKubernetesResource.class))
          .create();
      JsonNode spec = policySpec(admin);

      // 1. The original installs its operands; GPU pods run.
      long t0 = System.nanoTime();
      Map<String, String> uids;
      Map<String, Map<String, String>> labels;
      try (OriginalOperator original = startOriginal(cp, work, "original-1")) {
        awaitReady(admin, nodes, "the original", () -> original.tail(40), original::alive);
        awaitOperands(admin, "the original", d -> !ours(d));
        System.out.printf("[MigrationIT] the original ready in %d s%n", seconds(t0));
        for (NodeDescription n : nodes) {
          if (n.gpus() > 0) {
            admin
                .pods()
                .inNamespace("default")
                .resource(WorkloadPods.gpuPod("train-" + n.name(), 1, n.name()))
                .create();
          }
        }
        awaitTrue(
            Duration.ofSeconds(60),
            () -> "GPU pods not running: " + phases(admin),
            () -> phases(admin).values().stream().allMatch("Running"::equals));
        uids = podUids(admin);
        assertThat(uids).hasSize(2);
        labels = nvidiaLabels(admin);
        assertThat(labels.get("gpu-a")).containsEntry("nvidia.com/gpu.present", "true");
      }

      // 2. The switch to ours: the chart over the same namespace, adopting the policy and the
      // operands' RBAC the original created (helm's adoption metadata, docs/migration.md).
      t0 = System.nanoTime();
      List<String> adopted = adoptForHelm(admin, HelmChart.template(VALUES, SET));
      System.out.println("[MigrationIT] adopted for helm: " + adopted);
      assertThat(adopted)
          .isNotEmpty()
          .allMatch(
              k -> k.matches("(Cluster)?Role(Binding)?/nvidia-.*|Service/gpu-operator"),
              "the operands' RBAC and the operator's metrics Service only");
      var release =
          new Helm(ChartFiles.CHART)
              .install()
              .withName(HelmChart.RELEASE)
              .withNamespace(NS)
              .withValuesFile(VALUES.toAbsolutePath())
              .set("clusterPolicy.deployCR", "false")
              .withKubeConfig(cp.kubeconfig())
              .call();
      assertThat(release.getStatus()).isEqualTo("deployed");
      awaitReady(admin, nodes, "ours", () -> "", () -> true);
      awaitOperands(admin, "ours", MigrationIT::ours);
      System.out.printf("[MigrationIT] ours ready in %d s%n", seconds(t0));
      assertUndisturbed(admin, cp, spec, uids, labels, "the switch to ours");

      // 3. Back: the chart uninstalled (the policy is not the release's, so it stays), the
      // original started again with its CRDs, as its chart's upgrade hook applies them.
      t0 = System.nanoTime();
      Helm.uninstall(HelmChart.RELEASE).withNamespace(NS).withKubeConfig(cp.kubeconfig()).call();
      awaitTrue(
          Duration.ofSeconds(60),
          () -> "our operator pods still there",
          () ->
              admin
                  .pods()
                  .inNamespace(NS)
                  .withLabel("app.kubernetes.io/component", "operator")
                  .list()
                  .getItems()
                  .isEmpty());
      applyOriginalCrds(admin);
      try (OriginalOperator again = startOriginal(cp, work, "original-2")) {
        awaitOperands(admin, "the original", d -> !ours(d));
        awaitReady(admin, nodes, "the original again", () -> again.tail(40), again::alive);
        System.out.printf("[MigrationIT] the original ready again in %d s%n", seconds(t0));
        assertUndisturbed(admin, cp, spec, uids, labels, "the switch back to the original");
      }
    }
  }

  /** The original as a process, its root under {@code work}, its log in target/migration-it. */
  private static OriginalOperator startOriginal(ControlPlane cp, Path work, String run)
      throws IOException {
    return OriginalOperator.start(
        work.resolve(run),
        cp.kubeconfigFor("admin"),
        NS,
        Path.of("target", "migration-it", run + ".log"));
  }

  private void assertUndisturbed(
      KubernetesClient admin,
      ControlPlane cp,
      JsonNode spec,
      Map<String, String> uids,
      Map<String, Map<String, String>> labels,
      String step)
      throws Exception {
    assertThat(policySpec(admin)).as("the ClusterPolicy's spec after " + step).isEqualTo(spec);
    assertThat(podUids(admin)).as("GPU pods (name to uid) after " + step).isEqualTo(uids);
    for (Pod p : admin.pods().inNamespace("default").list().getItems()) {
      assertThat(p.getStatus().getPhase()).isEqualTo("Running");
      assertThat(p.getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();
    }
    assertThat(evictionsAndDeletions(cp.auditLog()))
        .as("evictions and deletions of GPU pods (audit log) by " + step)
        .isZero();
    // Every nvidia.com label kept with its value, but those the two write differently.
    Map<String, Map<String, String>> now = nvidiaLabels(admin);
    Map<String, List<String>> changed = new TreeMap<>();
    for (var e : labels.entrySet()) {
      Map<String, String> after = now.get(e.getKey());
      var keys = new TreeSet<String>();
      e.getValue()
          .forEach(
              (k, v) -> {
                if (!v.equals(after.get(k))) {
                  keys.add(k);
                }
              });
      after.keySet().stream().filter(k -> !e.getValue().containsKey(k)).forEach(keys::add);
      if (!keys.isEmpty()) {
        changed.put(e.getKey(), new ArrayList<>(keys));
      }
    }
    System.out.println("[MigrationIT] labels changed after " + step + ": " + changed);
    assertThat(changed.values().stream().flatMap(List::stream))
        .as("nvidia.com labels changed by " + step)
        .allMatch(OWNED_DIFFERENTLY::contains);
  }

  /**
   * Helm's adoption of objects that exist but no release owns: for each object of the rendering
   * already in the cluster without helm's metadata, the label and annotations {@code helm install}
   * checks. Returns kind/name of each.
   */
  private static List<String> adoptForHelm(KubernetesClient admin, String rendered) {
    List<String> adopted = new ArrayList<>();
    for (GenericKubernetesResource o : HelmChart.objects(rendered)) {
      var ops = admin.genericKubernetesResources(o.getApiVersion(), o.getKind());
      String ns = o.getMetadata().getNamespace();
      var r =
          ns == null
              ? ops.withName(o.getMetadata().getName())
              : ops.inNamespace(ns).withName(o.getMetadata().getName());
      GenericKubernetesResource live = r.get();
      if (live == null
          || "Helm"
              .equals(
                  live.getMetadata().getLabels() == null
                      ? null
                      : live.getMetadata().getLabels().get("app.kubernetes.io/managed-by"))) {
        continue;
      }
      r.edit(
          x -> {
            if (x.getMetadata().getLabels() == null) {
              x.getMetadata().setLabels(new HashMap<>());
            }
            if (x.getMetadata().getAnnotations() == null) {
              x.getMetadata().setAnnotations(new HashMap<>());
            }
            x.getMetadata().getLabels().put("app.kubernetes.io/managed-by", "Helm");
            x.getMetadata().getAnnotations().put("meta.helm.sh/release-name", HelmChart.RELEASE);
            x.getMetadata().getAnnotations().put("meta.helm.sh/release-namespace", NS);
            return x;
          });
      adopted.add(o.getKind() + "/" + o.getMetadata().getName());
    }
    return adopted;
  }

  /**
   * Whether this project's operator wrote the DaemonSet: its ownership label, which the original
   * neither writes nor keeps (both record a hash under the same annotation).
   */
  private static boolean ours(DaemonSet d) {
    return d.getMetadata().getLabels() != null
        && d.getMetadata().getLabels().containsKey(ManagedObjects.OPERAND_LABEL);
  }

  /**
   * Waits until every operand DaemonSet with pods to run is {@code whose}, observed, its pods
   * updated (but OnDelete's) and ready.
   */
  private static void awaitOperands(KubernetesClient admin, String who, Predicate<DaemonSet> whose)
      throws InterruptedException {
    awaitTrue(
        Duration.ofMinutes(2),
        () -> "operand DaemonSets not all " + who + "'s: " + daemonSets(admin),
        () ->
            admin.apps().daemonSets().inNamespace(NS).list().getItems().stream()
                .filter(d -> d.getStatus() != null && d.getStatus().getDesiredNumberScheduled() > 0)
                .allMatch(
                    d ->
                        whose.test(d)
                            && d.getStatus().getObservedGeneration() != null
                            && d.getStatus().getObservedGeneration()
                                >= d.getMetadata().getGeneration()
                            // OnDelete (the driver): its pods stay as they are until an upgrade
                            // replaces them, so the switch does not reload the driver.
                            && ("OnDelete".equals(d.getSpec().getUpdateStrategy().getType())
                                || Objects.equals(
                                    d.getStatus().getUpdatedNumberScheduled(),
                                    d.getStatus().getDesiredNumberScheduled()))
                            && Objects.equals(
                                d.getStatus().getNumberReady(),
                                d.getStatus().getDesiredNumberScheduled())));
  }

  /** Each DaemonSet: name, whose (ours/original), generation/observed, desired/updated/ready. */
  private static List<String> daemonSets(KubernetesClient admin) {
    return admin.apps().daemonSets().inNamespace(NS).list().getItems().stream()
        .map(
            d ->
                d.getMetadata().getName()
                    + (ours(d) ? " ours " : " original ")
                    + d.getMetadata().getGeneration()
                    + "/"
                    + (d.getStatus() == null ? null : d.getStatus().getObservedGeneration())
                    + " "
                    + (d.getStatus() == null
                        ? "-"
                        : d.getStatus().getDesiredNumberScheduled()
                            + "/"
                            + d.getStatus().getUpdatedNumberScheduled()
                            + "/"
                            + d.getStatus().getNumberReady())
                    + " "
                    + d.getSpec().getUpdateStrategy().getType())
        .toList();
  }

  private static long seconds(long t0) {
    return (System.nanoTime() - t0) / 1_000_000_000L;
  }

  static void applyOriginalCrds(KubernetesClient admin) throws Exception {
    for (Path crd : OriginalOperator.crds()) {
      try (InputStream in = Files.newInputStream(crd)) {
        admin.load(in).forceConflicts().serverSideApply();
      }
    }
    awaitTrue(
        Duration.ofSeconds(30),
        () -> "the original's CRDs are not established",
        () ->
            admin.apiextensions().v1().customResourceDefinitions().list().getItems().stream()
                .allMatch(
                    c ->
                        c.getStatus() != null
                            && c.getStatus().getConditions() != null
                            && c.getStatus().getConditions().stream()
                                .anyMatch(
                                    x ->
                                        x.getType().equals("Established")
                                            && x.getStatus().equals("True"))));
  }

  private JsonNode policySpec(KubernetesClient admin) {
    GenericKubernetesResource p =
        admin.genericKubernetesResources(CLUSTER_POLICIES).withName(POLICY).get();
    return json.valueToTree(p.getAdditionalProperties().get("spec"));
  }

  private static Map<String, String> phases(KubernetesClient admin) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : admin.pods().inNamespace("default").list().getItems()) {
      out.put(p.getMetadata().getName(), p.getStatus() == null ? null : p.getStatus().getPhase());
    }
    return out;
  }

  private static Map<String, String> podUids(KubernetesClient admin) {
    Map<String, String> out = new TreeMap<>();
    for (Pod p : admin.pods().inNamespace("default").list().getItems()) {
      out.put(p.getMetadata().getName(), p.getMetadata().getUid());
    }
    return out;
  }

  private static Map<String, Map<String, String>> nvidiaLabels(KubernetesClient admin) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    admin
        .nodes()
        .list()
        .getItems()
        .forEach(
            n -> {
              Map<String, String> l = new TreeMap<>();
              n.getMetadata()
                  .getLabels()
                  .forEach(
                      (k, v) -> {
                        if (k.startsWith("nvidia.com/")) {
                          l.put(k, v);
                        }
                      });
              out.put(n.getMetadata().getName(), l);
            });
    return out;
  }

  /** Evictions (pods/eviction) and deletions of pods in the workload namespace, audit log. */
  private long evictionsAndDeletions(Path auditLog) throws Exception {
    long n = 0;
    for (String line : Files.readAllLines(auditLog)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode e = json.readTree(line);
      JsonNode ref = e.path("objectRef");
      if (!"pods".equals(ref.path("resource").asText())
          || !"default".equals(ref.path("namespace").asText())) {
        continue;
      }
      String verb = e.path("verb").asText();
      if ("eviction".equals(ref.path("subresource").asText()) || "delete".equals(verb)) {
        n++;
      }
    }
    return n;
  }

  private static void awaitReady(
      KubernetesClient admin,
      List<NodeDescription> nodes,
      String who,
      Supplier<String> log,
      BooleanSupplier alive)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    SimulationStatus s;
    do {
      s = SimulationStatus.read(admin, nodes, NS, POLICY);
      if (s.ready()) {
        return;
      }
      if (!alive.getAsBoolean()) {
        break;
      }
      Thread.sleep(1000);
    } while (System.nanoTime() < deadline);
    throw new AssertionError(
        who + " did not make the cluster ready: " + s.reasons() + "\n" + log.get());
  }

  private static void awaitTrue(Duration max, Supplier<String> what, BooleanSupplier cond)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what.get());
      }
      Thread.sleep(500);
    }
  }
}
