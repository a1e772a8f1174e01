package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuoperator.api.LeanSerialization;
import io.gpuoperator.config.cli.Kubeconfigs;
import java.nio.file.Path;

/**
 * The operator's Kubernetes client. fabric8 has no client-side QPS limiter like client-go's 5/10;
 * what bounds throughput is its cap on concurrent requests (64, 5 per host by default), raised here
 * so that hundreds of node patches can be in flight when a node pool joins.
 */
public final class OperatorClients {
  public static final int MAX_CONCURRENT_REQUESTS = 256;

  private OperatorClients() {}

  /**
   * A client from the kubeconfig file, or from the usual places (in-cluster service account,
   * KUBECONFIG, ~/.kube/config) when it is null; an unusable file is a ConfigException naming it.
   */
  public static KubernetesClient create(Path kubeconfig, String userAgent) {
    Config config = Kubeconfigs.load(kubeconfig, "--kubeconfig");
    config.setUserAgent(userAgent);
    config.setMaxConcurrentRequests(MAX_CONCURRENT_REQUESTS);
    config.setMaxConcurrentRequestsPerHost(MAX_CONCURRENT_REQUESTS);
    // The operator watches every Node and its operands' pods: not reading managedFields (a third
    // to a half of each object) is most of what decoding those events costs.
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(LeanSerialization.create())
        .build();
  }
}
