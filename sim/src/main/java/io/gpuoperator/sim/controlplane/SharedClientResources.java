package io.gpuoperator.sim.controlplane;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.LeanSerialization;
import java.net.http.HttpClient;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Builds fabric8 clients that share what fabric8 7.5 would give each of them, as a simulator builds
 * a client per node (each node has its own credential):
 *
 * <ul>
 *   <li>one pool of threads instead of two per client (a cached pool for informer and watch
 *       callbacks, another for the JDK HTTP client's responses). Callbacks stay ordered per
 *       informer (fabric8 serialises them on top of the executor), so sharing changes how many
 *       threads exist, not what runs in what order;
 *   <li>one {@link KubernetesSerialization} (its Jackson mapper and the deserializers it builds for
 *       every model class: a few MiB of reflection metadata per client otherwise). Jackson's
 *       mappers are thread-safe; nothing in it depends on the credential. It skips managedFields
 *       ({@link LeanSerialization}): no kubelet or agent reads them.
 * </ul>
 *
 * <p>The pool is JVM-wide and made of daemon threads that end after 5 s idle (a burst of requests
 * at rollout needs many, the idle cluster few), so closing a client or a control plane never has to
 * stop it (as {@code UnixSockets} does for gRPC's event loops). It is unbounded on purpose: an
 * informer handler may block on a request whose response needs a thread of this pool.
 */
public final class SharedClientResources {
  private static final ExecutorService POOL =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          5,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          DaemonThreads.named("kube-client-"));

  private static final KubernetesSerialization SERIALIZATION = LeanSerialization.create();

  private SharedClientResources() {}

  /**
   * A client for the config on the shared threads and serialization, whose watches are HTTP streams
   * (the config is changed to say so). fabric8 watches over WebSockets by default, and the JDK
   * client opens a connection of its own for each WebSocket (HTTP/1.1 upgrade), so each watch of
   * each node's kubelet and agents cost a TLS handshake and a connection the API server keeps; a
   * watch as a streamed GET is one more stream on the client's HTTP/2 connection.
   */
  public static KubernetesClient client(Config config) {
    config.setOnlyHttpWatches(true);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new SharedExecutorHttpClientFactory())
        .withTaskExecutor(POOL)
        .withKubernetesSerialization(SERIALIZATION)
        .build();
  }

  /** The JDK HTTP client factory, on the shared pool; fabric8 only shuts down its own pools. */
  static final class SharedExecutorHttpClientFactory extends JdkHttpClientFactory {
    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
      return HttpClient.newBuilder().executor(POOL);
    }
  }
}
