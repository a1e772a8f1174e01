package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's service-account token manager: what a real kubelet mounts into a pod as its {@code
 * kube-api-access} volume. A token comes from the TokenRequest API for the pod's ServiceAccount,
 * bound to the pod (so it dies with it), requested with the node's own credential (the Node
 * authorizer and NodeRestriction allow that only for pods bound to this node), for the API server's
 * default audience, and renewed once 80% of its lifetime has passed, as the kubelet does. The
 * configuration it gives has the API server's URL and CA and that token, nothing of the node's or
 * an admin's credential.
 */
public final class ServiceAccountTokens {
  private static final Logger LOG = LoggerFactory.getLogger(ServiceAccountTokens.class);

  /** The kubelet's lifetime for projected service-account tokens (one hour and 7 s). */
  static final long EXPIRATION_SECONDS = 3607;

  private final KubernetesClient nodeClient;

  ServiceAccountTokens(KubernetesClient nodeClient) {
    this.nodeClient = nodeClient;
  }

  /**
   * A client configuration authenticated as the pod's ServiceAccount. Requests the first token at
   * once, so a refusal (no such ServiceAccount, a pod of another node) is this call's error.
   *
   * @throws IllegalStateException when the pod does not mount a service-account token
   */
  public Config configFor(Pod pod) {
    String where = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    if (Boolean.FALSE.equals(pod.getSpec().getAutomountServiceAccountToken())) {
      throw new IllegalStateException(
          "pod "
              + where
              + " mounts no service-account token (automountServiceAccountToken: false)");
    }
    PodToken token = new PodToken(pod);
    token.getToken();
    Config node = nodeClient.getConfiguration();
    // A kubeconfig without a user and without a file: nothing to fall back to but the token.
    String kubeconfig =
        "apiVersion: v1\nkind: Config\nclusters:\n- name: cluster\n  cluster:\n    server: "
            + node.getMasterUrl()
            + "\n    certificate-authority-data: "
            + node.getCaCertData()
            + "\ncontexts:\n- name: pod\n  context:\n    cluster: cluster\n    namespace: "
            + pod.getMetadata().getNamespace()
            + "\ncurrent-context: pod\n";
    Config config = Config.fromKubeconfig(kubeconfig);
    config.setOauthTokenProvider(token);
    return config;
  }

  /** The ServiceAccount a pod runs as ({@code default} when it names none). */
  static String serviceAccount(Pod pod) {
    String sa = pod.getSpec().getServiceAccountName();
    return sa == null || sa.isBlank() ? "default" : sa;
  }

  /** One pod's token, requested on first use and again at 80% of its lifetime. */
  private final class PodToken implements OAuthTokenProvider {
    private final Pod pod;
    private String token;
    private Instant renewAt = Instant.EPOCH;

    PodToken(Pod pod) {
      this.pod = pod;
    }

    @Override
    public synchronized String getToken() {
      Instant now = Instant.now();
      if (token != null && now.isBefore(renewAt)) {
        return token;
      }
      String ns = pod.getMetadata().getNamespace();
      String sa = serviceAccount(pod);
      TokenRequest request =
          new TokenRequestBuilder()
              .withNewSpec()
              .withExpirationSeconds(EXPIRATION_SECONDS)
              .withNewBoundObjectRef()
              .withApiVersion("v1")
              .withKind("Pod")
              .withName(pod.getMetadata().getName())
              .withUid(pod.getMetadata().getUid())
              .endBoundObjectRef()
              .endSpec()
              .build();
      TokenRequest issued =
          nodeClient.serviceAccounts().inNamespace(ns).withName(sa).tokenRequest(request);
      Instant expires = Instant.parse(issued.getStatus().getExpirationTimestamp());
      token = issued.getStatus().getToken();
      renewAt = now.plus(Duration.between(now, expires).multipliedBy(8).dividedBy(10));
      LOG.debug(
          "token for ServiceAccount {}/{} of pod {}, renewed at {}",
          ns,
          sa,
          pod.getMetadata().getName(),
          renewAt);
      return token;
    }
  }
}
