package io.gpuoperator.sim.controlplane;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.LeanSerialization;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

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

  /** Only hands delayed work to the pool (informers' retries). */
  private static final ScheduledThreadPoolExecutor DELAYS = delays();

  private static ScheduledThreadPoolExecutor delays() {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("kube-client-delay-"));
    e.setKeepAliveTime(5, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    e.setRemoveOnCancelPolicy(true);
    return e;
  }

  /** Runs work that may block on the API server on the clients' pool. */
  static void execute(Runnable task) {
    POOL.execute(task);
  }

  /** Runs such work on the clients' pool after a delay. */
  static void schedule(Runnable task, long delay, TimeUnit unit) {
    DELAYS.schedule(() -> POOL.execute(task), delay, unit);
  }

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

  /**
   * A client like {@link #client(Config)} whose requests travel on one of the given shared
   * connections instead of a connection of its own: for the simulated kubelets, whose credentials
   * are bearer tokens, sent with each request, so nothing of a connection belongs to one node.
   */
  public static KubernetesClient client(Config config, SharedConnections connections) {
    config.setOnlyHttpWatches(true);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientFactory(new SharedConnectionHttpClientFactory(connections))
        .withTaskExecutor(POOL)
        .withKubernetesSerialization(SERIALIZATION)
        .build();
  }

  /**
   * JDK HTTP clients, each one HTTP/2 connection to the API server (with its selector thread),
   * handed to fabric8 clients {@code clientsPerConnection} at a time. A kubelet keeps a few streams
   * open (its pod watch, a request now and then), so 50 kubelets stay well under the API server's
   * streams per connection (Go's default 250). One per node before: at 1,000 nodes that was 1,000
   * TLS connections the API server served and 1,000 selector threads here, each woken for its own
   * node's few bytes.
   */
  public static final class SharedConnections {
    private final int clientsPerConnection;
    private final List<HttpClient> connections = new ArrayList<>();
    private int handedOut;

    public SharedConnections(int clientsPerConnection) {
      if (clientsPerConnection < 1) {
        throw new IllegalArgumentException(
            "clientsPerConnection must be at least 1, got " + clientsPerConnection);
      }
      this.clientsPerConnection = clientsPerConnection;
    }

    /** The connection for the next client; the first of each group is built from its builder. */
    synchronized HttpClient next(HttpClient.Builder configured) {
      int group = handedOut++ / clientsPerConnection;
      if (group == connections.size()) {
        connections.add(configured.build());
      }
      return connections.get(group);
    }

    /** How many connections were made. */
    public synchronized int connections() {
      return connections.size();
    }
  }

  /** The factory whose builders build no client of their own but take a shared one. */
  static final class SharedConnectionHttpClientFactory extends SharedExecutorHttpClientFactory {
    private final SharedConnections connections;

    SharedConnectionHttpClientFactory(SharedConnections connections) {
      this.connections = connections;
    }

    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
      return new SharingBuilder(super.createNewHttpClientBuilder(), connections);
    }
  }

  /**
   * Takes fabric8's settings (TLS trust, timeouts, protocol: the same for every client of one
   * control plane) and builds the shared connection from them only for the first of its group.
   */
  private record SharingBuilder(HttpClient.Builder delegate, SharedConnections connections)
      implements HttpClient.Builder {
    @Override
    public HttpClient.Builder cookieHandler(CookieHandler h) {
      delegate.cookieHandler(h);
      return this;
    }

    @Override
    public HttpClient.Builder connectTimeout(Duration d) {
      delegate.connectTimeout(d);
      return this;
    }

    @Override
    public HttpClient.Builder sslContext(SSLContext c) {
      delegate.sslContext(c);
      return this;
    }

    @Override
    public HttpClient.Builder sslParameters(SSLParameters p) {
      delegate.sslParameters(p);
      return this;
    }

    @Override
    public HttpClient.Builder executor(Executor e) {
      delegate.executor(e);
      return this;
    }

    @Override
    public HttpClient.Builder followRedirects(HttpClient.Redirect r) {
      delegate.followRedirects(r);
      return this;
    }

    @Override
    public HttpClient.Builder version(HttpClient.Version v) {
      delegate.version(v);
      return this;
    }

    @Override
    public HttpClient.Builder priority(int p) {
      delegate.priority(p);
      return this;
    }

    @Override
    public HttpClient.Builder proxy(ProxySelector p) {
      delegate.proxy(p);
      return this;
    }

    @Override
    public HttpClient.Builder authenticator(Authenticator a) {
      delegate.authenticator(a);
      return this;
    }

    @Override
    public HttpClient build() {
      return connections.next(delegate);
    }
  }

  /** The JDK HTTP client factory, on the shared pool; fabric8 only shuts down its own pools. */
  static class SharedExecutorHttpClientFactory extends JdkHttpClientFactory {
    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
      return HttpClient.newBuilder().executor(POOL);
    }
  }
}
