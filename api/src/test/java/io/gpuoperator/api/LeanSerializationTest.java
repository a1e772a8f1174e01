package io.gpuoperator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class LeanSerializationTest {
  private static final String NODE =
      """
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","resourceVersion":"7",
       "labels":{"nvidia.com/gpu.present":"true"},
       "managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1",
         "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{}}}}]},
       "status":{"capacity":{"nvidia.com/gpu":"8"}}}
      """;

  @Test
  void readsEverythingButManagedFields() {
    Node node = LeanSerialization.create().unmarshal(NODE, Node.class);
    assertThat(node.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(node.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    assertThat(node.getMetadata().getLabels()).containsEntry("nvidia.com/gpu.present", "true");
    assertThat(node.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(node.getStatus().getCapacity().get("nvidia.com/gpu").getAmount()).isEqualTo("8");
    // The stock serialization does read them: the difference is the mixin's.
    assertThat(new KubernetesSerialization().unmarshal(NODE, Node.class).getMetadata())
        .extracting(m -> m.getManagedFields().size())
        .isEqualTo(1);
  }

  @Test
  void writesObjectsAsTheStockSerialization() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .addToLabels("a", "b")
            .endMetadata()
            .build();
    assertThat(LeanSerialization.create().asJson(node))
        .isEqualTo(new KubernetesSerialization().asJson(node));
  }
}
