package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code compute-domain.nvidia.com} driver's record of the claims it prepared on this node,
 * kept in its own directory like the GPU driver's {@link Checkpoint}, so that a restarted plugin
 * still unprepares them (and removes the node's domain label when the last channel claim goes).
 * Immutable; changes return a new checkpoint.
 *
 * @param claims prepared (or half-prepared: {@code completed} false) claims by UID
 */
public record ComputeDomainCheckpoint(Map<String, Claim> claims) {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public ComputeDomainCheckpoint {
    claims = claims == null ? Map.of() : Map.copyOf(claims);
  }

  /**
   * One claim.
   *
   * @param namespace the claim's namespace
   * @param name the claim's name
   * @param domainUid the ComputeDomain its configuration names
   * @param channel whether it holds a channel (else the IMEX daemon's device)
   * @param completed whether its CDI spec was written and the kubelet got its devices
   * @param devices its devices with their CDI device IDs (empty until completed)
   */
  public record Claim(
      String namespace,
      String name,
      String domainUid,
      boolean channel,
      boolean completed,
      List<Checkpoint.PreparedDevice> devices) {
    public Claim {
      devices = devices == null ? List.of() : List.copyOf(devices);
    }
  }

  /** With the claim set. */
  public ComputeDomainCheckpoint with(String uid, Claim claim) {
    Map<String, Claim> c = new LinkedHashMap<>(claims);
    c.put(uid, claim);
    return new ComputeDomainCheckpoint(c);
  }

  /** Without the claim. */
  public ComputeDomainCheckpoint without(String uid) {
    Map<String, Claim> c = new LinkedHashMap<>(claims);
    c.remove(uid);
    return new ComputeDomainCheckpoint(c);
  }

  /** Whether another claim than {@code uid} holds a channel of the domain. */
  public boolean otherChannelOf(String domainUid, String uid) {
    return claims.entrySet().stream()
        .anyMatch(
            e ->
                !e.getKey().equals(uid)
                    && e.getValue().channel()
                    && e.getValue().domainUid().equals(domainUid));
  }

  /** Reads the file; empty when there is none. */
  public static ComputeDomainCheckpoint load(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new ComputeDomainCheckpoint(Map.of());
    }
    try {
      return JSON.readValue(file.toFile(), ComputeDomainCheckpoint.class);
    } catch (IOException e) {
      throw CheckpointStore.unreadable(
          file, e, "(their CDI specs and the node's domain label then stay until removed by hand)");
    }
  }

  /** Replaces the file. */
  public void save(Path file) throws IOException {
    AtomicFile.writeJson(file, this);
  }
}
