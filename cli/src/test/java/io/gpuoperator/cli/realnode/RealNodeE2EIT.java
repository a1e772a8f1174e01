package io.gpuoperator.cli.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.common.OperandStatus;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The stack on a real kubelet and containerd ({@link RealNode}), installed with the chart as a user
 * installs it (cli/src/test/resources/realnode/values.yaml), with simulated GPUs (the node profile
 * realnode/node-profile.yaml: two A100s) because this machine has none. The tests run in order on
 * one installation; each names what it proves.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeE2EIT {
  static final String NS = "gpu-operator";
  private static final Path CHART = RealNode.REPO.resolve("deploy/helm/gpu-operator");
  private static final Path RESOURCES = RealNode.REPO.resolve("cli/src/test/resources/realnode");
  private static final int GPUS = 2;

  private static ControlPlane cp;
  private static RealNode node;
  private static KubernetesClient c;

  @BeforeAll
  static void start() throws Exception {
    String why = RealNode.unavailable();
    if (why == null) {
      why = RealNode.projectImageProblem();
    }
    if (why != null) {
      if ("true".equals(System.getenv("CI"))) {
        throw new IllegalStateException("CI runs the real-node suite, but " + why);
      }
      Assumptions.abort(why);
    }
    cp = RealNode.controlPlane().start();
    node =
        RealNode.start(
            cp,
            List.of(RealNode.projectImageArchive(), RealNode.busyboxArchive()),
            RESOURCES.resolve("node-profile.yaml").toString());
    c = cp.client();
  }

  @AfterAll
  static void stop() {
    try {
      if (node != null) {
        node.close();
      }
    } finally {
      if (cp != null) {
        cp.close();
      }
    }
  }

  @Test
  @Order(1)
  void podsReachThisMachineAndNothingElse() throws Exception {
    long dropped = node.forwardDrops();
    Pod pod =
        run(
            "net-probe",
            "if nc -w 3 10.0.0.1 443 </dev/null; then echo api=ok; else echo api=no; fi;"
                + " if nc -w 3 192.0.2.1 53 </dev/null; then echo out=ok; else echo out=no; fi");
    await().atMost(Duration.ofSeconds(90)).until(() -> phase(pod).equals("Succeeded"));
    String log = c.pods().resource(pod).getLog();
    // The bridge turned forwarding on, as on any node: only the node's rule keeps the pods in.
    assertThat(RealNode.ipForward()).isEqualTo("1");
    assertThat(log).contains("api=ok").contains("out=no");
    assertThat(node.forwardDrops()).as("packets dropped on their way out").isGreaterThan(dropped);
    c.pods().resource(pod).delete();
  }

  /** A pod started before the chart: the toolkit's containerd restart must not touch it. */
  private static Pod bystander;

  private static String bystanderContainer;

  @Test
  @Order(2)
  void theChartInstallsAndEveryOperandRuns() throws Exception {
    bystander = run("bystander", "sleep 100000");
    await().atMost(Duration.ofSeconds(60)).until(() -> phase(bystander).equals("Running"));
    bystanderContainer = containerId(bystander);

    var release =
        new Helm(CHART)
            .install()
            .withName("gpu-operator")
            .withNamespace(NS)
            .createNamespace()
            .withKubeConfig(cp.kubeconfig())
            .withValuesFile(RESOURCES.resolve("values.yaml"))
            .call();
    assertThat(release.getStatus()).isEqualTo("deployed");

    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              ClusterPolicy p = c.resources(ClusterPolicy.class).withName("cluster-policy").get();
              assertThat(p.getStatus()).as("ClusterPolicy status").isNotNull();
              assertThat(p.getStatus().state)
                  .as("ClusterPolicy state; operands:%s\npods:%s", operands(p), pods())
                  .isEqualTo(State.READY);
            });
    List<DaemonSet> sets = c.apps().daemonSets().inNamespace(NS).list().getItems();
    assertThat(sets).isNotEmpty();
    for (DaemonSet ds : sets) {
      assertThat(ds.getStatus().getNumberReady())
          .as("%s ready pods", ds.getMetadata().getName())
          .isEqualTo(ds.getStatus().getDesiredNumberScheduled());
    }
  }

  @Test
  @Order(3)
  void featureDiscoveryLabelsTheNodeAndTheDevicePluginAdvertisesItsGpus() {
    Node n = c.nodes().withName(node.name()).get();
    assertThat(n.getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.count", Integer.toString(GPUS))
        .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB")
        .containsEntry("nvidia.com/gpu.present", "true");
    assertThat(n.getStatus().getAllocatable()).containsEntry("nvidia.com/gpu", new Quantity("2"));
  }

  private static Pod run(String name, String script) {
    return c.pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(1L)
                .addNewContainer()
                .withName("main")
                .withImage(RealNode.BUSYBOX)
                .withImagePullPolicy("Never")
                .withCommand("sh", "-c", script)
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static String phase(Pod pod) {
    Pod p = c.pods().resource(pod).get();
    return p == null || p.getStatus() == null || p.getStatus().getPhase() == null
        ? ""
        : p.getStatus().getPhase();
  }

  private static String containerId(Pod pod) {
    return c.pods().resource(pod).get().getStatus().getContainerStatuses().get(0).getContainerID();
  }

  /** The last lines a container wrote (the previous run's when it restarted). */
  static String log(Pod p, String container) {
    try {
      return c.pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(p.getMetadata().getName())
          .inContainer(container)
          .tailingLines(15)
          .getLog()
          .replace("\n", "\n      ");
    } catch (RuntimeException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static String operands(ClusterPolicy p) {
    StringBuilder out = new StringBuilder();
    for (var o :
        p.getStatus().operands == null ? List.<OperandStatus>of() : p.getStatus().operands) {
      out.append("\n  ")
          .append(o.name)
          .append('=')
          .append(o.state == null ? null : o.state.value())
          .append(' ')
          .append(o.nodesReady)
          .append('/')
          .append(o.nodesDesired)
          .append(o.message == null ? "" : " " + o.message);
    }
    return out.toString();
  }

  /** Every pod of the operator's namespace with its phase and container states, for messages. */
  static String pods() {
    StringBuilder out = new StringBuilder();
    for (Pod p : c.pods().inNamespace(NS).list().getItems()) {
      out.append("\n  ").append(p.getMetadata().getName()).append(' ');
      out.append(p.getStatus().getPhase());
      var statuses = new java.util.ArrayList<io.fabric8.kubernetes.api.model.ContainerStatus>();
      if (p.getStatus().getInitContainerStatuses() != null) {
        statuses.addAll(p.getStatus().getInitContainerStatuses());
      }
      if (p.getStatus().getContainerStatuses() != null) {
        statuses.addAll(p.getStatus().getContainerStatuses());
      }
      for (var s : statuses) {
        out.append(' ').append(s.getName()).append('=');
        var st = s.getState();
        if (st.getRunning() != null) {
          out.append("running");
        } else if (st.getWaiting() != null) {
          out.append("waiting(")
              .append(st.getWaiting().getReason())
              .append(": ")
              .append(st.getWaiting().getMessage())
              .append(')');
        } else if (st.getTerminated() != null) {
          out.append("terminated(")
              .append(st.getTerminated().getExitCode())
              .append(' ')
              .append(st.getTerminated().getReason())
              .append(')');
        }
        out.append(" restarts=").append(s.getRestartCount());
        boolean failing =
            s.getRestartCount() > 0
                || st.getTerminated() != null && st.getTerminated().getExitCode() != 0
                || st.getRunning() != null && !"Running".equals(p.getStatus().getPhase());
        if (failing) {
          out.append("\n    log of ").append(s.getName()).append(": ").append(log(p, s.getName()));
        }
      }
    }
    return out.toString();
  }
}
