package io.gpuoperator.node.exporter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The exporter's HTTP endpoints: {@code /metrics} (the latest collection, OpenMetrics when the
 * scraper's {@code Accept} asks for {@code application/openmetrics-text}, gzip when it accepts it),
 * {@code /health} (200 {@code OK}, or 503 with the reason) and {@code /} (a page linking both).
 * Handlers only copy bytes already rendered. Served by the JDK's {@code HttpServer} ({@link
 * #start}, a real node's exporter), or on the JVM's one {@link SelectorHttpServer} ({@link
 * #startShared}, the simulator's hundreds of exporters); {@link #respond} answers for both.
 */
public final class ExporterServer implements AutoCloseable {
  private static final String OPENMETRICS = "application/openmetrics-text";

  /**
   * The handlers' threads, shared by every exporter of the JVM (handlers only copy bytes already
   * rendered, so four serve a simulator's hundreds of exporters too); they end after 30 s idle.
   */
  private static final ExecutorService WORKERS = workers();

  private final int port;
  private final Runnable stop;

  private ExporterServer(int port, Runnable stop) {
    this.port = port;
    this.stop = stop;
  }

  private static ExecutorService workers() {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            4,
            4,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "exporter-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * The JDK server's switch for TCP_NODELAY on accepted connections (read once, when the first
   * server of the JVM starts). Without it a response's last segment waits for the scraper's delayed
   * ACK (40 ms on Linux) whenever a segment is still unacknowledged, which was most of the p99 of
   * concurrent scrapes (BENCHMARKS.md). The image's launcher sets it too, for the JVMs where
   * another server starts first.
   */
  static final String NODELAY = "sun.net.httpserver.nodelay";

  /** Serves the exporter on an address ({@code port 0}: any free port). */
  public static ExporterServer start(InetSocketAddress address, Supplier<MetricsExporter> exporter)
      throws IOException {
    if (System.getProperty(NODELAY) == null) {
      System.setProperty(NODELAY, "true");
    }
    HttpServer server;
    try {
      server = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
    server.setExecutor(WORKERS);
    server.createContext("/", ex -> jdk(ex, exporter.get()));
    server.start();
    return new ExporterServer(server.getAddress().getPort(), () -> server.stop(0));
  }

  /**
   * Serves the exporter on an address of the JVM's one {@link SelectorHttpServer}: no thread of its
   * own (the simulator runs one exporter per simulated node).
   */
  public static ExporterServer startShared(
      InetSocketAddress address, Supplier<MetricsExporter> exporter) throws IOException {
    SelectorHttpServer.Listener l =
        SelectorHttpServer.listen(
            address, r -> respond(r.method(), r.path(), r::header, exporter.get()));
    return new ExporterServer(l.port(), l::close);
  }

  /** The port it listens on. */
  public int port() {
    return port;
  }

  /**
   * The answer to a request, whichever server received it. Paths route by prefix, as the JDK
   * server's contexts do: {@code /metrics...} to the metrics, {@code /health...} to the health,
   * {@code /} to the index page, anything else 404. {@code header} gives a request header's value
   * ("" when absent).
   */
  static SelectorHttpServer.Response respond(
      String method,
      String path,
      java.util.function.Function<String, String> header,
      MetricsExporter exporter) {
    if (path.startsWith("/metrics")) {
      String accept = header.apply("Accept").toLowerCase(Locale.ROOT);
      MetricsModel.Format format =
          accept.contains(OPENMETRICS) ? MetricsModel.Format.OPENMETRICS : MetricsModel.Format.TEXT;
      boolean gzip = header.apply("Accept-Encoding").toLowerCase(Locale.ROOT).contains("gzip");
      byte[] body = exporter.current().body(new Exposition.Variant(format, gzip));
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("Content-Type", Exposition.contentType(format));
      if (gzip) {
        headers.put("Content-Encoding", "gzip");
      }
      return new SelectorHttpServer.Response(200, headers, body);
    }
    if (path.startsWith("/health")) {
      MetricsExporter.Health h = exporter.health();
      return new SelectorHttpServer.Response(
          h.ok() ? 200 : 503,
          Map.of("Content-Type", "text/plain; charset=utf-8"),
          (h.message() + "\n").getBytes(StandardCharsets.UTF_8));
    }
    if (!path.equals("/")) {
      return new SelectorHttpServer.Response(
          404, Map.of(), "not found\n".getBytes(StandardCharsets.UTF_8));
    }
    String page =
        "<html><head><title>GPU Exporter</title></head><body><h1>GPU Exporter</h1>"
            + "<p><a href=\"/metrics\">Metrics</a></p><p><a href=\"/health\">Health</a></p>"
            + "</body></html>\n";
    return new SelectorHttpServer.Response(
        200,
        Map.of("Content-Type", "text/html; charset=utf-8"),
        page.getBytes(StandardCharsets.UTF_8));
  }

  private static void jdk(HttpExchange ex, MetricsExporter exporter) throws IOException {
    try (ex) {
      SelectorHttpServer.Response r =
          respond(
              ex.getRequestMethod(),
              ex.getRequestURI().getPath(),
              name -> header(ex, name),
              exporter);
      r.headers().forEach((k, v) -> ex.getResponseHeaders().set(k, v));
      send(ex, r.status(), r.body());
    }
  }

  private static String header(HttpExchange ex, String name) {
    String v = ex.getRequestHeaders().getFirst(name);
    return v == null ? "" : v;
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    boolean head = ex.getRequestMethod().equalsIgnoreCase("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    stop.run();
  }
}
