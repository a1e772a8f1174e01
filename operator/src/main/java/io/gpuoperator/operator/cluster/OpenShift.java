package io.gpuoperator.operator.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Whether the cluster is OpenShift. The original asks for the {@code config.openshift.io}
 * ClusterVersion; what rendering for OpenShift needs is the SecurityContextConstraints API, so the
 * operator asks discovery for its group, once at start (a server's APIs change only with an
 * upgrade, which restarts the operator). The chart's {@code platform.openshift} can also say so
 * ({@code PLATFORM_OPENSHIFT}).
 */
public final class OpenShift {
  /** The API group of SecurityContextConstraints: served only by OpenShift. */
  public static final String SECURITY_GROUP = "security.openshift.io";

  public static final String SCC_API_VERSION = SECURITY_GROUP + "/v1";
  public static final String SCC_KIND = "SecurityContextConstraints";

  private OpenShift() {}

  /** Whether the server serves {@link #SECURITY_GROUP} (discovery of {@code /apis}). */
  public static boolean served(KubernetesClient client) {
    return client.getApiGroup(SECURITY_GROUP) != null;
  }
}
