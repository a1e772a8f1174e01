package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.gpuoperator.api.LeanSerialization;
import io.gpuoperator.config.cli.Kubeconfigs;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;

/**
 * The operator's Kubernetes client. fabric8 has no client-side QPS limiter like client-go's 5/10;
 * what bounds throughput is its cap on concurrent requests (64, 5 per host by default), raised here
 * so that hundreds of node patches can be in flight when a node pool joins. Its two thread pools
 * (the JDK HTTP client's, which completes responses and feeds watch streams, and fabric8's task
 * executor, which calls the informers' event handlers) are bounded: by default both are cached
 * pools that grew to 33 and 16 threads while 1,000 nodes were labelled, though their tasks are
 * short and never block on each other.
 */
public final class OperatorClients {
  public static final int MAX_CONCURRENT_REQUESTS = 256;

  /**
   * Threads of the HTTP client's pool and of the informers' handler pool, each: 2 labelled 1,000
   * nodes as fast as 4 (their tasks only hand over bytes and events).
   */
  public static final int CLIENT_THREADS = 2;

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
        .withHttpClientFactory(new BoundedHttpClientFactory())
        .withTaskExecutorSupplier(
            new KubernetesClientBuilder.ExecutorSupplier() {
              @Override
              public ExecutorService get() {
                return ThreadPools.bounded("k8s-client-tasks", CLIENT_THREADS);
              }

              @Override
              public void onClose(java.util.concurrent.Executor executor) {
                ((ExecutorService) executor).shutdownNow();
              }
            })
        .build();
  }

  /**
   * JDK HTTP clients whose executor is bounded. fabric8 cannot hand the executor back on close (it
   * only shuts down its own kind), so after a client closes its idle threads end on their own
   * within {@link ThreadPools#IDLE}.
   */
  static final class BoundedHttpClientFactory extends JdkHttpClientFactory {
    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
      return HttpClient.newBuilder().executor(ThreadPools.bounded("k8s-http", CLIENT_THREADS));
    }
  }
}
