package io.gpuoperator.operator.upgrade;

/**
 * The driver pod running on a node, as the upgrade sees it.
 *
 * @param revision the pod's {@code controller-revision-hash}
 * @param latestRevision hash of its DaemonSet's newest ControllerRevision; null while unknown
 * @param digest {@code DRIVER_CONFIG_DIGEST} of the pod's driver container, null if unset
 * @param latestDigest the same in the DaemonSet's pod template
 * @param trouble why the driver container is not running well (e.g. "CrashLoopBackOff, 5
 *     restarts"), or null
 */
public record DriverPod(
    String namespace,
    String name,
    String uid,
    boolean terminating,
    boolean ready,
    String revision,
    String latestRevision,
    String digest,
    String latestDigest,
    String trouble) {

  /** The DaemonSet has a newer revision than the pod runs (unknown revisions: not outdated). */
  public boolean outdated() {
    return latestRevision != null && !latestRevision.equals(revision);
  }

  /**
   * The new pod installs the same driver as this one: both carry the same config digest, so the pod
   * can restart in place without evicting GPU workloads.
   */
  public boolean sameDriver() {
    return digest != null && !digest.isEmpty() && digest.equals(latestDigest);
  }

  /** The same pod, known to be deleted already. */
  public DriverPod deleted() {
    return new DriverPod(
        namespace, name, uid, true, ready, revision, latestRevision, digest, latestDigest, trouble);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
