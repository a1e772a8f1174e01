package io.gpuoperator.node.dra;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin's record of the claims it prepared, kept on disk ({@link CheckpointStore}) so a
 * restarted plugin neither forgets a claim (unprepare still cleans up) nor prepares one twice.
 * Immutable; changes return a new checkpoint.
 *
 * @param version the file format
 * @param claims prepared (or half-prepared) claims by claim UID
 */
public record Checkpoint(int version, Map<String, PreparedClaim> claims) {
  /** The format written. */
  public static final int VERSION = 1;

  public Checkpoint {
    claims = claims == null ? Map.of() : Map.copyOf(claims);
  }

  /** No claims. */
  public static Checkpoint empty() {
    return new Checkpoint(VERSION, Map.of());
  }

  /** With the claim set (replacing an earlier record of the same UID). */
  public Checkpoint with(String uid, PreparedClaim claim) {
    Map<String, PreparedClaim> c = new LinkedHashMap<>(claims);
    c.put(uid, claim);
    return new Checkpoint(version, c);
  }

  /** Without the claim. */
  public Checkpoint without(String uid) {
    Map<String, PreparedClaim> c = new LinkedHashMap<>(claims);
    c.remove(uid);
    return new Checkpoint(version, c);
  }

  /** Where a claim's preparation is. */
  public enum State {
    /** Started: some devices may be created or configured; the CDI spec may be missing. */
    PREPARE_STARTED,
    /** Done: the CDI spec exists and the kubelet got the device IDs. */
    PREPARE_COMPLETED
  }

  /**
   * One claim.
   *
   * @param namespace the claim's namespace
   * @param name the claim's name
   * @param state how far preparation got
   * @param devices its devices on this node
   */
  public record PreparedClaim(
      String namespace, String name, State state, List<PreparedDevice> devices) {
    public PreparedClaim {
      devices = devices == null ? List.of() : List.copyOf(devices);
    }

    /** The same claim in another state. */
    public PreparedClaim in(State s) {
      return new PreparedClaim(namespace, name, s, devices);
    }

    /** The same claim with other devices. */
    public PreparedClaim withDevices(List<PreparedDevice> d) {
      return new PreparedClaim(namespace, name, state, d);
    }
  }

  /**
   * One device of a claim.
   *
   * @param requests the requests it satisfies
   * @param device its name in the pool
   * @param gpuIndex the (parent) GPU
   * @param uuid the GPU or MIG device UUID; null until a MIG placement is created
   * @param placement the MIG placement to create for it (partitionable devices); null otherwise
   * @param createdMig the MIG device this plugin created there, destroyed at unprepare; null until
   *     created
   * @param sharing how it is shared
   * @param cdiDeviceIds the CDI device IDs handed to the kubelet
   */
  public record PreparedDevice(
      List<String> requests,
      String device,
      int gpuIndex,
      String uuid,
      DraDevice.MigSlot placement,
      CreatedMig createdMig,
      Sharing sharing,
      List<String> cdiDeviceIds) {
    public PreparedDevice {
      requests = requests == null ? List.of() : List.copyOf(requests);
      cdiDeviceIds = cdiDeviceIds == null ? List.of() : List.copyOf(cdiDeviceIds);
    }

    /** The same device, now created as a MIG device. */
    public PreparedDevice created(String migUuid, CreatedMig mig) {
      return new PreparedDevice(
          requests, device, gpuIndex, migUuid, placement, mig, sharing, cdiDeviceIds);
    }

    /** The same device with its CDI device IDs. */
    public PreparedDevice withCdiDeviceIds(List<String> ids) {
      return new PreparedDevice(
          requests, device, gpuIndex, uuid, placement, createdMig, sharing, ids);
    }
  }

  /**
   * A MIG device the plugin created.
   *
   * @param gpuInstanceId its GPU instance
   * @param computeInstanceId its compute instance
   */
  public record CreatedMig(int gpuInstanceId, int computeInstanceId) {}
}
