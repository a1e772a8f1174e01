package io.gpuoperator.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1.ClusterPolicy;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * The typed model keeps every field of the documentation sample, including ones it does not model.
 */
class SampleRoundTripTest {
  private static final String SAMPLE = "/io/gpuoperator/api/samples/clusterpolicy.yaml";

  @Test
  void sampleSurvivesTypedRoundTrip() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    JsonNode original;
    try (InputStream in = getClass().getResourceAsStream(SAMPLE)) {
      original = yaml.readTree(in).get("spec");
    }
    ClusterPolicy typed;
    try (InputStream in = getClass().getResourceAsStream(SAMPLE)) {
      typed = Serialization.unmarshal(in, ClusterPolicy.class);
    }
    JsonNode back = new ObjectMapper().readTree(Serialization.asJson(typed)).get("spec");
    assertThat(back).isEqualTo(original);
  }
}
