package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Content hash of an object as the operator applies it (owner references and labels included, the
 * hash annotation itself excluded). Equal hashes mean an apply would change nothing.
 */
public final class ObjectHash {
  private ObjectHash() {}

  /** Hex SHA-256 of the object's JSON without the hash annotation. */
  public static String of(HasMetadata object) {
    HasMetadata copy = Serialization.clone(object);
    Map<String, String> annotations = copy.getMetadata().getAnnotations();
    if (annotations != null) {
      Map<String, String> rest = new LinkedHashMap<>(annotations);
      rest.remove(ReconcilerKeys.HASH_ANNOTATION);
      copy.getMetadata().setAnnotations(rest.isEmpty() ? null : rest);
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(Serialization.asJson(copy).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /** The hash recorded on a live object, or null. */
  public static String recorded(HasMetadata live) {
    Map<String, String> a = live == null ? null : live.getMetadata().getAnnotations();
    return a == null ? null : a.get(ReconcilerKeys.HASH_ANNOTATION);
  }
}
