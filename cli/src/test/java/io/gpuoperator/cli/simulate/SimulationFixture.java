package io.gpuoperator.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One simulation for a test class, registered as {@code @RegisterExtension static final
 * SimulationFixture SIM = new SimulationFixture(Simulation.builder()...)}: started before the
 * class's first test, closed after its last, and then checked to have removed its nodes'
 * directories. The reads the simulation ITs share (a node's labels, its allocatable count, an
 * operand's DaemonSet) are here once.
 */
final class SimulationFixture implements BeforeAllCallback, AfterAllCallback {
  private final Simulation.Builder what;
  private Simulation sim;

  SimulationFixture(Simulation.Builder what) {
    this.what = what;
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

  /** For {@link Simulation.Builder#beforePolicy}: creates a ConfigMap the policy names. */
  static Consumer<KubernetesClient> configMap(
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
