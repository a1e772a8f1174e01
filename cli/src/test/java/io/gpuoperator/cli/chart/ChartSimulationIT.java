package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.cli.simulate.ClusterOnNodes;
import io.gpuoperator.cli.simulate.OperatorInProcessAgent;
import io.gpuoperator.cli.simulate.SimulatedCluster;
import io.gpuoperator.cli.simulate.SimulationStatus;
import io.gpuoperator.sim.controlplane.ControlPlane;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The chart is the way in on the simulator: a real control plane and simulated nodes, then only
 * {@code helm install} (helm-java) with {@code simulator-values.yaml}. The chart's CRDs, RBAC,
 * operator Deployment (2 replicas, leader election), PDB and ClusterPolicy are all there is; the
 * simulated kubelets run the Deployment's pods ({@code operator} in-process, as the chart's
 * ServiceAccount with a pod-bound token, readiness from the chart's probes), one of them takes the
 * lease and reconciles, and the policy becomes ready. Deleting the leader's pod stops it; the other
 * takes the lease over and the policy stays ready.
 */
class ChartSimulationIT {
  private static final String NS = "gpu-operator";
  private static final String LEASE = "53822513.nvidia.com";
  private static final String SA_USER = "system:serviceaccount:" + NS + ":gpu-operator";
  private static final Path VALUES = Path.of("src/test/resources/chart/simulator-values.yaml");

  @Test
  void helmInstallAloneBringsTheSimulatedClusterToReady() throws Exception {
    List<NodeDescription> nodes = ClusterOnNodes.SMALL;
    List<String> names = nodes.stream().map(NodeDescription::name).toList();
    Path cpDir;
    List<Long> pids;
    Path nodesRoot;
    try (ClusterOnNodes onNodes = ClusterOnNodes.withScheduler(nodes)) {
      ControlPlane cp = onNodes.cp();
      SimulatedCluster cluster = onNodes.cluster();
      cpDir = cp.directory();
      pids = cp.pids();
      nodesRoot = cluster.root();
      KubernetesClient admin = cp.client();
      assertThat(admin.apiextensions().v1().customResourceDefinitions().list().getItems())
          .isEmpty();

      var release =
          new Helm(ChartFiles.CHART)
              .install()
              .withName(HelmChart.RELEASE)
              .withNamespace(NS)
              .createNamespace()
              .withValuesFile(VALUES.toAbsolutePath())
              .withKubeConfig(cp.kubeconfig())
              .call();
      assertThat(release.getStatus()).isEqualTo("deployed");

      // The CRDs are the chart's crds/ (nothing else installs any).
      for (String file : ChartFiles.CRDS) {
        String crd = file.substring(0, file.indexOf("-v1"));
        assertThat(admin.apiextensions().v1().customResourceDefinitions().withName(crd).get())
            .as(crd)
            .isNotNull();
      }

      // Both operator pods Running and Ready on simulated nodes, run as the chart's ServiceAccount.
      awaitBothOperatorPods(
          admin,
          pods -> {
            for (Pod p : pods) {
              assertThat(p.getSpec().getNodeName()).isIn(names);
              assertThat(p.getSpec().getServiceAccountName()).isEqualTo("gpu-operator");
              assertThat(p.getStatus().getPhase()).isEqualTo("Running");
              assertThat(ready(p)).as(p.getMetadata().getName()).isTrue();
            }
          });
      Map<String, OperatorInProcessAgent.Running> running = cluster.operator().running();
      Set<String> podNames = new HashSet<>();
      operatorPods(admin).forEach(p -> podNames.add(p.getMetadata().getName()));
      assertThat(running.keySet()).isEqualTo(podNames);
      for (var r : running.values()) {
        assertThat(r.user()).isEqualTo(SA_USER);
        // A token bound to that very pod, as the kubelet requests it.
        assertThat(r.extra())
            .containsEntry("authentication.kubernetes.io/pod-name", List.of(r.pod()));
        assertThat(r.healthPort()).isNotEqualTo(8081);
      }
      assertThat(running.values().stream().map(r -> r.healthPort()).distinct()).hasSize(2);

      // Exactly one holds the lease, and only it reconciles.
      String leader =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(() -> holder(admin), h -> h != null && podNames.contains(h));
      String standby = podNames.stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();

      // The ClusterPolicy from the chart's values becomes ready; GPU nodes labelled, advertising.
      SimulationStatus status = awaitReady(admin, nodes, Duration.ofMinutes(4));
      assertThat(status.ready()).as(() -> String.join("\n", status.reasons())).isTrue();
      ClusterPolicy policy = admin.resources(ClusterPolicy.class).withName("cluster-policy").get();
      assertThat(policy.getStatus().state).isEqualTo(State.READY);
      assertThat(policy.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "Helm");
      assertThat(gpus(admin, "h100-0")).isEqualTo("8");
      assertThat(gpus(admin, "l4-0")).isEqualTo("2");
      assertThat(gpus(admin, "cpu-0")).isNull();
      assertThat(label(admin, "h100-0")).contains("H100");
      assertThat(label(admin, "l4-0")).contains("L4");
      assertThat(label(admin, "cpu-0")).isNull();
      assertThat(holder(admin)).isEqualTo(leader);
      running = cluster.operator().running();
      assertThat(running.get(leader).operator().isLeader()).isTrue();
      assertThat(running.get(standby).operator().isLeader()).isFalse();
      assertThat(running.get(leader).operator().metrics().reconciliations()).isPositive();
      assertThat(running.get(standby).operator().metrics().reconciliations()).isZero();
      // Every operand DaemonSet was written by the operator's ServiceAccount, none by an admin.
      Set<String> dsWriters = writers(cp.auditLog(), "daemonsets");
      assertThat(dsWriters).containsExactly(SA_USER);

      // Deleting the leader's pod stops that operator; another takes the lease over once it
      // expires: the standby, or the ReplicaSet's replacement if it is running by then (both
      // candidates retry; a helper's run saw the replacement win).
      admin.pods().inNamespace(NS).withName(leader).delete();
      String successor =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofSeconds(1))
              .until(() -> holder(admin), h -> h != null && !h.equals(leader));
      assertThat(cluster.operator().running()).doesNotContainKey(leader);
      var newLeader = cluster.operator().running().get(successor).operator();
      await().atMost(Duration.ofSeconds(60)).until(newLeader::isLeader);
      await().atMost(Duration.ofSeconds(60)).until(() -> newLeader.metrics().reconciliations() > 0);
      // The ReplicaSet replaces the deleted pod; both run, one leading.
      awaitBothOperatorPods(
          admin,
          pods -> {
            assertThat(pods).allMatch(ChartSimulationIT::ready);
            assertThat(pods).noneMatch(p -> p.getMetadata().getName().equals(leader));
          });
      assertThat(holder(admin)).isEqualTo(successor);

      // A lease taken away while leading (someone else renewed it): that operator stops and its
      // container exits 1, as the real process does, instead of reconciling on; the kubelet
      // restarts it, and once the foreign lease expires one of the operators leads again.
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      admin
          .leases()
          .inNamespace(NS)
          .withName(LEASE)
          .edit(
              l -> {
                l.getSpec().setHolderIdentity("someone-else");
                l.getSpec().setAcquireTime(now);
                l.getSpec().setRenewTime(now);
                l.getSpec().setLeaseDurationSeconds(20);
                return l;
              });
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                var c = admin.pods().inNamespace(NS).withName(successor).get();
                var state = c.getStatus().getContainerStatuses().get(0);
                assertThat(state.getRestartCount()).isPositive();
                assertThat(state.getLastState().getTerminated().getExitCode()).isEqualTo(1);
              });
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> holder(admin), h -> h != null && !h.equals("someone-else"));
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(() -> assertThat(operatorPods(admin)).allMatch(ChartSimulationIT::ready));
      String last = holder(admin);
      assertThat(cluster.operator().running().values())
          .filteredOn(r -> r.operator().isLeader())
          .extracting(OperatorInProcessAgent.Running::pod)
          .containsExactly(last);
      SimulationStatus after = SimulationStatus.read(admin, nodes, NS, "cluster-policy");
      assertThat(after.ready()).as(() -> String.join("\n", after.reasons())).isTrue();
      assertThat(admin.resources(ClusterPolicy.class).withName("cluster-policy").get())
          .extracting(p -> p.getStatus().state)
          .isEqualTo(State.READY);
    }
    // Nothing left: no process of the control plane, no temp directory.
    assertThat(pids).isNotEmpty();
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("pid " + pid)
          .isFalse();
    }
    assertThat(cpDir).doesNotExist();
    assertThat(nodesRoot).doesNotExist();
  }

  private static List<Pod> operatorPods(KubernetesClient admin) {
    return admin
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/component", "operator")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  private static String holder(KubernetesClient admin) {
    Lease l = admin.leases().inNamespace(NS).withName(LEASE).get();
    return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
  }

  private static SimulationStatus awaitReady(
      KubernetesClient admin, List<NodeDescription> nodes, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    SimulationStatus s;
    do {
      s = SimulationStatus.read(admin, nodes, NS, "cluster-policy");
      if (s.ready()) {
        return s;
      }
      Thread.sleep(1000);
    } while (System.nanoTime() < deadline);
    return s;
  }

  private static String gpus(KubernetesClient admin, String node) {
    var a = admin.nodes().withName(node).get().getStatus().getAllocatable();
    return a == null || a.get("nvidia.com/gpu") == null
        ? null
        : a.get("nvidia.com/gpu").getAmount();
  }

  private static String label(KubernetesClient admin, String node) {
    return admin
        .nodes()
        .withName(node)
        .get()
        .getMetadata()
        .getLabels()
        .get(SimulationStatus.PRODUCT_LABEL);
  }

  /** The users that created, updated, patched or deleted a resource (audit log). */
  private static Set<String> writers(Path auditLog, String resource) throws Exception {
    ObjectMapper json = new ObjectMapper();
    Set<String> out = new HashSet<>();
    for (String line : Files.readAllLines(auditLog)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode e = json.readTree(line);
      if (resource.equals(e.path("objectRef").path("resource").asText())
          && e.path("objectRef").path("subresource").isMissingNode()
          && e.path("responseStatus").path("code").asInt() < 300) {
        out.add(e.path("user").path("username").asText());
      }
    }
    return out;
  }

  /** Waits (up to 2 min) until the chart's two operator pods exist and pass {@code check}. */
  private static void awaitBothOperatorPods(KubernetesClient admin, Consumer<List<Pod>> check) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              List<Pod> pods = operatorPods(admin);
              assertThat(pods).hasSize(2);
              check.accept(pods);
            });
  }
}
