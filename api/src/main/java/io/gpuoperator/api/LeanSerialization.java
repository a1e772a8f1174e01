package io.gpuoperator.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * A fabric8 serialization that skips {@code metadata.managedFields} when reading. Server-side
 * apply's bookkeeping is a third to a half of a Node's or a Pod's JSON, and nothing here reads it
 * (the operator decides what to write from its own hashes); skipped by the parser, it costs no
 * objects, so every watch event and response of a client built with this decodes faster. Writes
 * never carried it (an update without managedFields keeps the server's).
 */
public final class LeanSerialization {
  private LeanSerialization() {}

  @JsonIgnoreProperties(value = "managedFields", allowSetters = false)
  private abstract static class WithoutManagedFields {}

  /** A new serialization (its own Jackson mapper) that does not read managedFields. */
  public static KubernetesSerialization create() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.addMixIn(ObjectMeta.class, WithoutManagedFields.class);
    return new KubernetesSerialization(mapper, true);
  }
}
