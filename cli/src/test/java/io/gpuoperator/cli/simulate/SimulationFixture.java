package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.sim.kubelet.KubeletOptions;
import io.gpuoperator.sim.kubelet.NodeDescription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One simulation for a test class, registered as {@code @RegisterExtension static final
 * SimulationFixture SIM = SimulationFixture.quick(b -> b.policy(...), nodes...)} (or {@code new
 * SimulationFixture(Simulation.builder()...)}): started before the class's first test, closed after
 * its last, and then checked to have removed its nodes' directories. The reads the simulation ITs
 * share (a node's labels, its allocatable count, an operand's DaemonSet) are here once.
 */
final class SimulationFixture implements BeforeAllCallback, AfterAllCallback {
  private final Simulation.Builder what;
  private Simulation sim;

  SimulationFixture(Simulation.Builder what) {
    this.what = what;
  }

  /**
   * A simulation of {@code nodes} whose kubelets run at the simulator's quick pace ({@link
   * KubeletOptions#quick()}: what an IT wants unless it times the kubelets), set up further by
   * {@code setUp} (the policy, and any option the class needs; it may replace the kubelet options).
   */
  static SimulationFixture quick(
      UnaryOperator<Simulation.Builder> setUp, NodeDescription... nodes) {
    return of(b -> setUp.apply(b.kubeletOptions(KubeletOptions.quick())), nodes);
  }

  /** A simulation of {@code nodes} with the default kubelet options, set up by {@code setUp}. */
  static SimulationFixture of(UnaryOperator<Simulation.Builder> setUp, NodeDescription... nodes) {
    return new SimulationFixture(setUp.apply(Simulation.builder().nodes(List.of(nodes))));
  }

  /**
   * For ITs that kill a kubelet or fail an agent and wait for it to come back: a node goes NotReady
   * 16 s after its kubelet stops (Kubernetes' 40 s would dominate the test) and a failed container
   * restarts after {@code backOff}, doubling up to {@code maxBackOff}.
   */
  static Simulation.Builder recovering(
      Simulation.Builder builder, Duration backOff, Duration maxBackOff) {
    return builder
        .nodeMonitorGracePeriod("16s")
        .kubeletOptions(KubeletOptions.quick().withBackOff(backOff, maxBackOff));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    sim = what.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (sim != null) {
      Path root = sim.nodesRoot();
      sim.close();
      assertThat(root).doesNotExist();
    }
  }

  Simulation sim() {
    return sim;
  }

  /** The administrator's client of the simulated cluster. */
  KubernetesClient client() {
    return sim.client();
  }

  Map<String, String> labels(String node) {
    return client().nodes().withName(node).get().getMetadata().getLabels();
  }

  /** Sets one label on a node (a null value removes it), as an administrator would. */
  void label(String node, String key, String value) {
    Map<String, Object> labels = new HashMap<>();
    labels.put(key, value);
    client()
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("labels", labels))));
  }

  /** The node's allocatable amount of a resource, 0 where it has none. */
  long allocatable(String node, String resource) {
    Map<String, Quantity> a = client().nodes().withName(node).get().getStatus().getAllocatable();
    Quantity q = a == null ? null : a.get(resource);
    return q == null ? 0 : q.getNumericalAmount().longValue();
  }

  /** An operand's DaemonSet in the operator's namespace; fails where there is none. */
  DaemonSet daemonSet(String name) {
    DaemonSet ds = client().apps().daemonSets().inNamespace(sim.namespace()).withName(name).get();
    assertThat(ds).as(name).isNotNull();
    return ds;
  }

  /**
   * For {@link Simulation.Builder#beforePolicy}: the device plugin's ConfigMap {@code time-slicing}
   * whose entry {@code key} shares each {@code nvidia.com/gpu} among {@code replicas} pods.
   */
  static Consumer<KubernetesClient> timeSlicing(String namespace, String key, int replicas) {
    String config =
        """
        version: v1
        sharing:
          timeSlicing:
            resources:
            - name: nvidia.com/gpu
              replicas: %d
        """
            .formatted(replicas);
    return configMap(namespace, "time-slicing", Map.of(key, config));
  }

  /** For {@link Simulation.Builder#beforePolicy}: creates a ConfigMap the policy names. */
  private static Consumer<KubernetesClient> configMap(
      String namespace, String name, Map<String, String> data) {
    return c ->
        c.configMaps()
            .inNamespace(namespace)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .endMetadata()
                    .withData(data)
                    .build())
            .create();
  }
}
