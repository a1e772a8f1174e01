package io.gpuoperator.operator.cluster;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes server version and the oldest one this operator supports. The minimum is the
 * original's (1.29): everything the operator renders and calls exists there (policy/v1 Eviction,
 * server-side apply, CEL validation rules in CRDs, Pod Security admission), so no code path bends
 * objects for older servers; APIs that still move within the supported range (resource.k8s.io) are
 * chosen by discovery ({@link ServerApis}).
 *
 * @param gitVersion as the server reports it, e.g. "v1.36.3" or "v1.30.4-gke.1348000"
 */
public record KubernetesVersion(int major, int minor, String gitVersion) {
  /** The oldest supported minor release of Kubernetes 1.x. */
  public static final KubernetesVersion MINIMUM = new KubernetesVersion(1, 29, "v1.29");

  private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)(?:[.+-].*)?");

  /** Parses a git version; empty when it is not of the form vMAJOR.MINOR[...]. */
  public static Optional<KubernetesVersion> parse(String gitVersion) {
    if (gitVersion == null) {
      return Optional.empty();
    }
    Matcher m = VERSION.matcher(gitVersion.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new KubernetesVersion(
            Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), gitVersion.trim()));
  }

  /** Whether this version is at least major.minor. */
  public boolean atLeast(int major, int minor) {
    return this.major > major || (this.major == major && this.minor >= minor);
  }

  /**
   * Why the operator cannot run against a server of this version, or empty when it can. A version
   * the operator cannot read is not refused (a distribution may stamp its own format).
   */
  public static Optional<String> unsupportedReason(String gitVersion) {
    return parse(gitVersion)
        .filter(v -> !v.atLeast(MINIMUM.major, MINIMUM.minor))
        .map(
            v ->
                "Kubernetes "
                    + v.gitVersion
                    + " is older than "
                    + MINIMUM.gitVersion
                    + ", the oldest version this operator supports; upgrade the cluster to "
                    + MINIMUM.gitVersion
                    + " or newer (nothing was rendered or changed)");
  }
}
