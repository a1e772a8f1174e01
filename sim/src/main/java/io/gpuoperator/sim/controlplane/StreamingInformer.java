package io.gpuoperator.sim.controlplane;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.ByteArrayInputStream;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A list-and-watch cache of one kind for the simulator's hottest watches (each kubelet's pods,
 * every Node, the operator namespace's pods), in place of fabric8's informer. fabric8 7.5 reads an
 * HTTP watch stream one character at a time into a {@code StringBuffer} (a lock per character)
 * before it parses each line; with a thousand kubelets' watches that splitting was a third of the
 * simulator's client threads' CPU at 300 nodes, more than parsing the events. This one finds the
 * line ends in the bytes and parses each event straight from them.
 *
 * <p>As client-go's reflector: a paged list, then a watch from the list's resourceVersion with
 * bookmarks; a watch that ends is resumed from the last version seen; "410 Gone" (the version
 * compacted away) or a failure lists again after a back-off (1 s doubling to 30 s), forever, until
 * {@link #close()}. Handlers run on the watch's response thread, one event at a time, in order;
 * they must return quickly.
 */
public final class StreamingInformer<T extends HasMetadata> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamingInformer.class);

  /** Objects per page of a list (client-go's reflectors use 500). */
  private static final long PAGE = 500;

  private static final long MAX_BACKOFF_MS = 30_000;
  private static final long MIN_WATCH_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final KubernetesClient client;
  private final Class<T> type;
  private final String namespace;
  private final String fieldSelector;
  private final String what;
  private final KubernetesSerialization serialization;
  private final Map<String, T> store = new ConcurrentHashMap<>();
  private final List<ResourceEventHandler<? super T>> handlers = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> listed = new CompletableFuture<>();
  private volatile boolean closed;
  private volatile String resourceVersion;
  private volatile CompletableFuture<HttpResponse<AsyncBody>> call;
  private long backoffMs = 1_000;
  private int watchSecondsMin = 300;
  private int watchSecondsMax = 600;

  /**
   * @param namespace the namespace, or null for every namespace (or a cluster-scoped kind)
   * @param fieldSelector e.g. {@code spec.nodeName=n1}, or null
   */
  public StreamingInformer(
      KubernetesClient client, Class<T> type, String namespace, String fieldSelector) {
    this.client = client;
    this.type = type;
    this.namespace = namespace;
    this.fieldSelector = fieldSelector;
    this.serialization = client.getKubernetesSerialization();
    this.what =
        HasMetadata.getPlural(type)
            + (namespace == null ? "" : " in " + namespace)
            + (fieldSelector == null ? "" : " (" + fieldSelector + ")");
  }

  /** Watches that end after min to max seconds (5 to 10 minutes by default); before start. */
  StreamingInformer<T> withWatchSeconds(int min, int max) {
    watchSecondsMin = min;
    watchSecondsMax = max;
    return this;
  }

  /** Adds a handler; it hears of every object already known as added. */
  public StreamingInformer<T> addEventHandler(ResourceEventHandler<? super T> handler) {
    handlers.add(handler);
    store.values().forEach(handler::onAdd);
    return this;
  }

  /** Starts listing and watching; the result completes once the first list is in. */
  public CompletableFuture<Void> start() {
    SharedClientResources.execute(this::relist);
    return listed;
  }

  /** The object by key ({@code namespace/name}, or {@code name} for cluster-scoped kinds). */
  public T get(String key) {
    return store.get(key);
  }

  /** Every object known now. */
  public List<T> list() {
    return new ArrayList<>(store.values());
  }

  @Override
  public void close() {
    closed = true;
    CompletableFuture<HttpResponse<AsyncBody>> c = call;
    if (c != null) {
      c.cancel(true);
      c.thenAccept(r -> r.body().cancel());
    }
  }

  private static String key(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null || ns.isEmpty()
        ? o.getMetadata().getName()
        : ns + "/" + o.getMetadata().getName();
  }

  private FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?> source() {
    FilterWatchListDeletable<T, ? extends KubernetesResourceList<T>, ?> op =
        namespace == null
            ? client.resources(type).inAnyNamespace()
            : client.resources(type).inNamespace(namespace);
    if (fieldSelector == null) {
      return op;
    }
    int eq = fieldSelector.indexOf('=');
    return op.withField(fieldSelector.substring(0, eq), fieldSelector.substring(eq + 1));
  }

  /** Lists every page, replaces the store (telling handlers what changed), then watches. */
  private void relist() {
    if (closed) {
      return;
    }
    try {
      Map<String, T> fresh = new HashMap<>();
      String cont = null;
      String version;
      do {
        KubernetesResourceList<T> page =
            source().list(new ListOptionsBuilder().withLimit(PAGE).withContinue(cont).build());
        for (T o : page.getItems()) {
          fresh.put(key(o), o);
        }
        cont = page.getMetadata().getContinue();
        version = page.getMetadata().getResourceVersion();
      } while (cont != null && !cont.isEmpty());
      replace(fresh);
      resourceVersion = version;
      backoffMs = 1_000;
      listed.complete(null);
      watch();
    } catch (RuntimeException e) {
      retryLater("list", e);
    }
  }

  private void replace(Map<String, T> fresh) {
    for (Map.Entry<String, T> e : fresh.entrySet()) {
      T old = store.put(e.getKey(), e.getValue());
      if (old == null) {
        handlers.forEach(h -> h.onAdd(e.getValue()));
      } else if (!old.getMetadata()
          .getResourceVersion()
          .equals(e.getValue().getMetadata().getResourceVersion())) {
        handlers.forEach(h -> h.onUpdate(old, e.getValue()));
      }
    }
    for (String k : List.copyOf(store.keySet())) {
      if (!fresh.containsKey(k)) {
        T gone = store.remove(k);
        if (gone != null) {
          handlers.forEach(h -> h.onDelete(gone, true));
        }
      }
    }
  }

  private void retryLater(String step, Throwable e) {
    if (closed) {
      return;
    }
    long wait = backoffMs;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    LOG.warn("{}: {} failed, listing again in {} ms: {}", what, step, wait, e.toString());
    SharedClientResources.schedule(this::relist, wait, TimeUnit.MILLISECONDS);
  }

  private String watchUrl() {
    String base = client.getMasterUrl().toString().replaceAll("/+$", "");
    String apiVersion = HasMetadata.getApiVersion(type);
    String prefix = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
    StringBuilder url = new StringBuilder(base).append(prefix);
    if (namespace != null) {
      url.append("/namespaces/").append(namespace);
    }
    url.append('/').append(HasMetadata.getPlural(type));
    url.append("?watch=true&allowWatchBookmarks=true&resourceVersion=").append(resourceVersion);
    // As client-go's reflector: a random 5-10 minute watch, so watches end spread out.
    url.append("&timeoutSeconds=")
        .append(ThreadLocalRandom.current().nextInt(watchSecondsMin, watchSecondsMax + 1));
    if (fieldSelector != null) {
      url.append("&fieldSelector=")
          .append(URLEncoder.encode(fieldSelector, StandardCharsets.UTF_8));
    }
    return url.toString();
  }

  private void watch() {
    if (closed) {
      return;
    }
    HttpRequest request =
        client.getHttpClient().newHttpRequestBuilder().uri(watchUrl()).forStreaming().build();
    LineSplitter lines = new LineSplitter();
    long startedAt = System.nanoTime();
    CompletableFuture<HttpResponse<AsyncBody>> c =
        client
            .getHttpClient()
            .consumeBytes(
                request,
                (buffers, body) -> {
                  for (ByteBuffer b : buffers) {
                    lines.feed(b, this::onLine);
                  }
                  body.consume();
                });
    call = c;
    c.whenComplete(
        (response, error) -> {
          if (error != null) {
            retryLater("watch", error);
            return;
          }
          if (!response.isSuccessful()) {
            response.body().cancel();
            if (response.code() == 410) {
              SharedClientResources.execute(this::relist);
            } else {
              retryLater("watch", new IllegalStateException("HTTP " + response.code()));
            }
            return;
          }
          response.body().consume();
          response
              .body()
              .done()
              .whenComplete(
                  (v, e) -> {
                    if (closed) {
                      return;
                    }
                    String why = streamError;
                    streamError = null;
                    if (e != null) {
                      retryLater("watch", e);
                    } else if (gone) {
                      gone = false;
                      SharedClientResources.execute(this::relist);
                    } else if (why != null) {
                      retryLater("watch", new IllegalStateException(why));
                    } else if (System.nanoTime() - startedAt < MIN_WATCH_NANOS) {
                      // Ended at once: no tight loop of reconnections.
                      retryLater("watch", new IllegalStateException("the watch ended at once"));
                    } else {
                      // The watch's timeout: resume from the last version seen.
                      backoffMs = 1_000;
                      SharedClientResources.execute(this::watch);
                    }
                  });
        });
    if (closed) {
      close();
    }
  }

  private volatile boolean gone;
  private volatile String streamError;

  private void onLine(byte[] line, int length) {
    if (closed) {
      return;
    }
    WatchEvent event =
        serialization.unmarshal(new ByteArrayInputStream(line, 0, length), WatchEvent.class);
    String kind = event.getType();
    if ("ERROR".equals(kind)) {
      if (event.getObject() instanceof Status s && Integer.valueOf(410).equals(s.getCode())) {
        gone = true; // the stream ends next; the store is listed again then
      } else {
        // The stream ends after it; it is listed again after a back-off.
        streamError = "watch error " + event.getObject();
      }
      return;
    }
    if (!type.isInstance(event.getObject())) {
      return;
    }
    T o = type.cast(event.getObject());
    resourceVersion = o.getMetadata().getResourceVersion();
    switch (kind) {
      case "ADDED", "MODIFIED" -> {
        T old = store.put(key(o), o);
        if (old == null) {
          handlers.forEach(h -> h.onAdd(o));
        } else {
          handlers.forEach(h -> h.onUpdate(old, o));
        }
      }
      case "DELETED" -> {
        T old = store.remove(key(o));
        if (old != null) {
          handlers.forEach(h -> h.onDelete(o, false));
        }
      }
      default -> {
        // BOOKMARK: only the version moves on.
      }
    }
  }

  /** Cuts a byte stream into lines without copying what is already whole in a buffer. */
  static final class LineSplitter {
    interface Sink {
      void line(byte[] bytes, int length);
    }

    private byte[] pending = new byte[8192];
    private int size;

    void feed(ByteBuffer b, Sink sink) {
      while (b.hasRemaining()) {
        int start = b.position();
        int end = b.limit();
        int nl = -1;
        if (b.hasArray()) {
          byte[] a = b.array();
          int off = b.arrayOffset();
          for (int i = start; i < end; i++) {
            if (a[off + i] == '\n') {
              nl = i;
              break;
            }
          }
        } else {
          for (int i = start; i < end; i++) {
            if (b.get(i) == '\n') {
              nl = i;
              break;
            }
          }
        }
        int stop = nl < 0 ? end : nl;
        append(b, stop - start);
        if (nl < 0) {
          return;
        }
        b.get(); // the newline
        if (size > 0) {
          sink.line(pending, size);
        }
        size = 0;
      }
    }

    private void append(ByteBuffer b, int n) {
      if (size + n > pending.length) {
        pending = Arrays.copyOf(pending, Math.max(pending.length * 2, size + n));
      }
      b.get(pending, size, n);
      size += n;
    }
  }
}
