package io.gpuoperator.operator.operand;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.labels.Labels;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * A stable hash of a rendered object's content, stored in {@link Labels#LAST_APPLIED_HASH} so the
 * reconciler can skip writes when nothing changed. Map keys are sorted before hashing, so the order
 * in which labels or env were added does not matter.
 */
public final class ContentHash {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper SORTED =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private ContentHash() {}

  /** Hex SHA-256 (first 32 characters) of the object without its hash annotation and status. */
  public static String of(HasMetadata object) {
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> tree =
          SERIALIZATION.convertValue(object, Map.class) == null
              ? new HashMap<>()
              : SERIALIZATION.convertValue(object, Map.class);
      tree.remove("status");
      Object metadata = tree.get("metadata");
      if (metadata instanceof Map<?, ?> m && m.get("annotations") instanceof Map<?, ?> a) {
        @SuppressWarnings("unchecked")
        Map<String, Object> annotations = new HashMap<>((Map<String, Object>) a);
        annotations.remove(Labels.LAST_APPLIED_HASH);
        @SuppressWarnings("unchecked")
        Map<String, Object> meta = new HashMap<>((Map<String, Object>) m);
        if (annotations.isEmpty()) {
          meta.remove("annotations");
        } else {
          meta.put("annotations", annotations);
        }
        tree.put("metadata", meta);
      }
      byte[] json = SORTED.writeValueAsBytes(tree);
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
      return HexFormat.of().formatHex(digest).substring(0, 32);
    } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot hash " + object.getKind(), e);
    }
  }

  /** Sets the hash annotation on the object (after every other change). */
  public static void annotate(HasMetadata object) {
    String hash = of(object);
    Map<String, String> annotations = object.getMetadata().getAnnotations();
    if (annotations == null) {
      annotations = new java.util.LinkedHashMap<>();
      object.getMetadata().setAnnotations(annotations);
    }
    annotations.put(Labels.LAST_APPLIED_HASH, hash);
  }
}
