package io.gpuoperator.node.exporter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
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
 * Handlers only copy bytes already rendered.
 */
public final class ExporterServer implements AutoCloseable {
  private static final String OPENMETRICS = "application/openmetrics-text";

  /**
   * The handlers' threads, shared by every exporter of the JVM (handlers only copy bytes already
   * rendered, so four serve a simulator's hundreds of exporters too); they end after 30 s idle.
   */
  private static final ExecutorService WORKERS = workers();

  private final HttpServer server;

  private ExporterServer(HttpServer server) {
    this.server = server;
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
    server.createContext("/metrics", ex -> metrics(ex, exporter.get()));
    server.createContext("/health", ex -> health(ex, exporter.get()));
    server.createContext("/", ExporterServer::index);
    server.start();
    return new ExporterServer(server);
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void metrics(HttpExchange ex, MetricsExporter exporter) throws IOException {
    try (ex) {
      String accept = header(ex, "Accept");
      MetricsModel.Format format =
          accept.contains(OPENMETRICS) ? MetricsModel.Format.OPENMETRICS : MetricsModel.Format.TEXT;
      boolean gzip = header(ex, "Accept-Encoding").contains("gzip");
      byte[] body = exporter.current().body(new Exposition.Variant(format, gzip));
      ex.getResponseHeaders().set("Content-Type", Exposition.contentType(format));
      if (gzip) {
        ex.getResponseHeaders().set("Content-Encoding", "gzip");
      }
      send(ex, 200, body);
    }
  }

  private static void health(HttpExchange ex, MetricsExporter exporter) throws IOException {
    try (ex) {
      MetricsExporter.Health h = exporter.health();
      ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      send(ex, h.ok() ? 200 : 503, (h.message() + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void index(HttpExchange ex) throws IOException {
    try (ex) {
      if (!ex.getRequestURI().getPath().equals("/")) {
        send(ex, 404, "not found\n".getBytes(StandardCharsets.UTF_8));
        return;
      }
      String page =
          "<html><head><title>GPU Exporter</title></head><body><h1>GPU Exporter</h1>"
              + "<p><a href=\"/metrics\">Metrics</a></p><p><a href=\"/health\">Health</a></p>"
              + "</body></html>\n";
      ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      send(ex, 200, page.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String header(HttpExchange ex, String name) {
    String v = ex.getRequestHeaders().getFirst(name);
    return v == null ? "" : v.toLowerCase(Locale.ROOT);
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
    server.stop(0);
  }
}
