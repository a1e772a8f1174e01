package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.Crds;
import io.gpuoperator.api.common.OperandStatus;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicyStatus;
import io.gpuoperator.api.v1.NodeTaintSpec;
import io.gpuoperator.sim.junit.ControlPlaneExtension;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The generated CRDs on a real kube-apiserver: schema, round trip, status subresource. */
@ExtendWith(ControlPlaneExtension.class)
class ClusterPolicyCrdIT {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterPolicyCrdIT.class);
  private static final String SAMPLE = "/io/gpuoperator/api/samples/clusterpolicy.yaml";
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ResourceDefinitionContext CLUSTER_POLICY =
      ResourceDefinitionContext.fromResourceType(ClusterPolicy.class);

  private final KubernetesClient client;

  ClusterPolicyCrdIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeAll
  static void installCrds(KubernetesClient client) {
    LOG.info("API server version: {}", client.getKubernetesVersion().getGitVersion());
    Crds.apply(client);
  }

  @AfterEach
  void cleanUp() {
    client.resources(ClusterPolicy.class).delete();
  }

  @Test
  void serverIsTheBuiltVersion() {
    assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo(ControlPlane.K8S_VERSION);
  }

  @Test
  void documentationSampleReadsBackUnchanged() throws Exception {
    JsonNode written = sampleSpec();
    client.resources(ClusterPolicy.class).resource(sample()).create();

    // Compare raw JSON, not our typed model: the server must keep exactly what the user wrote.
    GenericKubernetesResource stored =
        client.genericKubernetesResources(CLUSTER_POLICY).withName("cluster-policy").get();
    JsonNode readBack = YAML.valueToTree(stored.getAdditionalProperties().get("spec"));
    assertThat(readBack).isEqualTo(written);

    // And our typed model has every field of the original's (vgpuManager.driverManager ...).
    ClusterPolicy typed = client.resources(ClusterPolicy.class).withName("cluster-policy").get();
    JsonNode typedBack = YAML.valueToTree(typed.getSpec());
    assertThat(typedBack).isEqualTo(written);
    assertThat(typed.getSpec().vgpuManager.driverManager.image).isEqualTo("k8s-driver-manager");
  }

  @Test
  void statusIsPatchedThroughTheSubresourceOnly() throws Exception {
    ClusterPolicy created = client.resources(ClusterPolicy.class).resource(sample()).create();

    ClusterPolicyStatus status = new ClusterPolicyStatus();
    status.state = State.NOT_READY;
    status.namespace = "gpu-operator";
    status.observedGeneration = created.getMetadata().getGeneration();
    Condition ready =
        new ConditionBuilder()
            .withType("Ready")
            .withStatus("False")
            .withReason("OperandNotReady")
            .withMessage("nvidia-driver-daemonset: 0/2 nodes ready")
            .withLastTransitionTime("2026-11-30T09:00:00Z")
            .build();
    status.conditions = List.of(ready);
    OperandStatus driver = new OperandStatus();
    driver.name = "nvidia-driver-daemonset";
    driver.state = State.NOT_READY;
    driver.nodesReady = 0;
    driver.nodesDesired = 2;
    status.operands = List.of(driver);
    created.setStatus(status);

    ClusterPolicy patched = client.resources(ClusterPolicy.class).resource(created).patchStatus();
    assertThat(patched.getStatus().state).isEqualTo(State.NOT_READY);

    ClusterPolicy read = client.resources(ClusterPolicy.class).withName("cluster-policy").get();
    assertThat(read.getStatus().state).isEqualTo(State.NOT_READY);
    assertThat(read.getStatus().conditions)
        .extracting(Condition::getReason)
        .containsExactly("OperandNotReady");
    assertThat(read.getStatus().operands.get(0).nodesDesired).isEqualTo(2);
    // A status write does not bump the generation: only spec changes do.
    assertThat(read.getMetadata().getGeneration()).isEqualTo(created.getMetadata().getGeneration());

    // Status sent with a spec update is ignored by the main resource (status subresource on).
    read.getSpec().mig.strategy = io.gpuoperator.api.v1.MigStrategy.MIXED;
    read.getStatus().state = State.READY;
    ClusterPolicy updated = client.resources(ClusterPolicy.class).resource(read).update();
    assertThat(updated.getStatus().state).isEqualTo(State.NOT_READY);
    assertThat(updated.getMetadata().getGeneration())
        .isEqualTo(created.getMetadata().getGeneration() + 1);
  }

  @Test
  void wrongTypeIsRejectedNamingTheField() {
    GenericKubernetesResource bad = sampleWith("driver", "enabled", "maybe");
    assertThatThrownBy(
            () -> client.genericKubernetesResources(CLUSTER_POLICY).resource(bad).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("spec.driver.enabled")
        .hasMessageContaining("boolean");
  }

  @Test
  void enumAndBoundsAreEnforced() {
    ClusterPolicy policy = sample();
    policy.getSpec().driver.upgradePolicy.maxParallelUpgrades = -1;
    assertThatThrownBy(() -> client.resources(ClusterPolicy.class).resource(policy).create())
        .hasMessageContaining("spec.driver.upgradePolicy.maxParallelUpgrades");

    GenericKubernetesResource bad = sampleWith("mig", "strategy", "double");
    assertThatThrownBy(
            () -> client.genericKubernetesResources(CLUSTER_POLICY).resource(bad).create())
        .hasMessageContaining("spec.mig.strategy")
        .hasMessageContaining("single");
  }

  @Test
  void schemaDefaultsFillTheOperatorsOwnSection() {
    ClusterPolicy policy = sample();
    policy.getSpec().nodeTaint = new NodeTaintSpec();
    policy.getSpec().toolkit.installDir = null;
    ClusterPolicy created = client.resources(ClusterPolicy.class).resource(policy).create();
    assertThat(created.getSpec().nodeTaint.enabled).isTrue();
    assertThat(created.getSpec().nodeTaint.key).isEqualTo("nvidia.com/gpu");
    assertThat(created.getSpec().nodeTaint.effect).isEqualTo(NodeTaintSpec.Effect.NO_SCHEDULE);
    assertThat(created.getSpec().toolkit.installDir).isEqualTo("/usr/local/nvidia");
  }

  private ClusterPolicy sample() {
    try (InputStream in = getClass().getResourceAsStream(SAMPLE)) {
      return Serialization.unmarshal(in, ClusterPolicy.class);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The sample as a generic resource with {@code spec.<section>.<field>} set to {@code value}: a
   * value the typed classes could not hold, so only the API server's schema can refuse it.
   */
  @SuppressWarnings("unchecked")
  private GenericKubernetesResource sampleWith(String section, String field, Object value) {
    Map<String, Object> raw =
        Serialization.unmarshal(getClass().getResourceAsStream(SAMPLE), Map.class);
    ((Map<String, Object>) ((Map<String, Object>) raw.get("spec")).get(section)).put(field, value);
    return Serialization.unmarshal(Serialization.asJson(raw), GenericKubernetesResource.class);
  }

  private JsonNode sampleSpec() throws Exception {
    try (InputStream in = getClass().getResourceAsStream(SAMPLE)) {
      return YAML.readTree(in).get("spec");
    }
  }
}
