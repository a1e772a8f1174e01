package io.gpuoperator.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.junit.jupiter.api.Test;

class ObjectHashTest {
  static ConfigMap cm(String value) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("c")
        .withNamespace("ns")
        .endMetadata()
        .addToData("k", value)
        .build();
  }

  @Test
  void hashIgnoresItsOwnAnnotationButNotContent() {
    ConfigMap a = cm("1");
    ConfigMap b = cm("1");
    b.getMetadata().setAnnotations(new java.util.HashMap<>());
    b.getMetadata().getAnnotations().put(ReconcilerKeys.HASH_ANNOTATION, "stale");
    assertThat(ObjectHash.of(a)).isEqualTo(ObjectHash.of(b)).hasSize(32);
    assertThat(ObjectHash.of(cm("2"))).isNotEqualTo(ObjectHash.of(a));
    assertThat(ObjectHash.recorded(b)).isEqualTo("stale");
    assertThat(ObjectHash.recorded(a)).isNull();
  }
}
