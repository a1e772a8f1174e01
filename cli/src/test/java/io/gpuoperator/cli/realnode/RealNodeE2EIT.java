package io.gpuoperator.cli.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** The stack on a real kubelet and containerd ({@link RealNode}). */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeE2EIT {
  private static ControlPlane cp;
  private static RealNode node;

  @BeforeAll
  static void start() throws Exception {
    String why = RealNode.unavailable();
    if (why != null) {
      if ("true".equals(System.getenv("CI"))) {
        throw new IllegalStateException("CI runs the real-node suite, but " + why);
      }
      Assumptions.abort(why);
    }
    cp = RealNode.controlPlane().start();
    node = RealNode.start(cp, List.of(RealNode.busyboxArchive()), null);
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
    KubernetesClient c = cp.client();
    long dropped = node.forwardDrops();
    Pod pod =
        c.pods()
            .inNamespace("default")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("net-probe")
                    .endMetadata()
                    .withNewSpec()
                    .withRestartPolicy("Never")
                    .addNewContainer()
                    .withName("probe")
                    .withImage(RealNode.BUSYBOX)
                    .withImagePullPolicy("Never")
                    .withCommand(
                        "sh",
                        "-c",
                        "if nc -w 3 10.0.0.1 443 </dev/null; then echo api=ok; else echo api=no; fi;"
                            + " if nc -w 3 192.0.2.1 53 </dev/null; then echo out=ok;"
                            + " else echo out=no; fi")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              Pod p = c.pods().resource(pod).get();
              return p.getStatus() != null && "Succeeded".equals(p.getStatus().getPhase());
            });
    String log = c.pods().resource(pod).getLog();
    // The bridge turned forwarding on, as on any node: only the node's rule keeps the pods in.
    assertThat(RealNode.ipForward()).isEqualTo("1");
    assertThat(log).contains("api=ok").contains("out=no");
    assertThat(node.forwardDrops()).as("packets dropped on their way out").isGreaterThan(dropped);
    c.pods().resource(pod).delete();
  }
}
