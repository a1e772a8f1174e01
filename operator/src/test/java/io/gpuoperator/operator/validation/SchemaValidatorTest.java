package io.gpuoperator.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.Policies;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaValidatorTest {
  private static final KubernetesSerialization K = new KubernetesSerialization();

  @SuppressWarnings("unchecked")
  private static SchemaValidator.Result check(String specYaml) {
    Map<String, Object> doc =
        K.unmarshal(
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n"
                + specYaml,
            Map.class);
    return SchemaValidator.clusterPolicy().validate(doc);
  }

  @Test
  @SuppressWarnings("unchecked")
  void documentationSamplePasses() throws IOException {
    try (InputStream in = Policies.class.getResourceAsStream(Policies.SAMPLE)) {
      Map<String, Object> doc = K.unmarshal(in, Map.class);
      var r = SchemaValidator.clusterPolicy().validate(doc);
      assertThat(r.errors()).isEmpty();
      assertThat(r.droppedFields()).isEmpty();
    }
  }

  @Test
  void typesEnumsRangesPatternsAndRequired() {
    var r =
        check(
            String.join(
                "\n",
                "  driver:",
                "    version: 570.1",
                "    env:",
                "      - value: x",
                "    upgradePolicy:",
                "      maxUnavailable: [1]",
                "      maxParallelUpgrades: -1",
                "  daemonsets:",
                "    updateStrategy: Sometimes",
                "    rollingUpdate:",
                "      maxUnavailable: 25%",
                "  dcgm:",
                "    hostPort: 0",
                ""));
    assertThat(r.errors())
        .extracting(Violation::toString)
        .containsExactlyInAnyOrder(
            "spec.driver.version: must be of type string, got number 570.1",
            "spec.driver.env[0].name: Required value",
            "spec.driver.upgradePolicy.maxUnavailable: must be an integer or a string, got array",
            "spec.driver.upgradePolicy.maxParallelUpgrades: must be greater than or equal to 0",
            "spec.daemonsets.updateStrategy: Unsupported value: \"Sometimes\": supported values:"
                + " \"OnDelete\", \"RollingUpdate\"",
            "spec.dcgm.hostPort: must be greater than or equal to 1");
  }
}
