package io.gpuoperator.operator.runtime;

import io.gpuoperator.node.exporter.SelectorHttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The operator's HTTP endpoints on one port: /metrics on the metrics address, /healthz and /readyz
 * on the health address (as controller-runtime serves them). Every port is served by the JVM's one
 * selector thread ({@link SelectorHttpServer}): the JDK's {@code HttpServer} took three threads a
 * port and the Prometheus client's server one more, 7 of the operator's threads for two ports.
 * Endpoints run on that thread, so they only read what is already in memory.
 */
public final class HttpEndpoints implements AutoCloseable {
  /** One endpoint: status code and body, computed per request. */
  public interface Endpoint {
    /** Writes the body and returns the status code. */
    int handle(OutputStream body) throws IOException;
  }

  /** The content type of every answer: Prometheus' text format (also plain text for probes). */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final SelectorHttpServer.Listener listener;

  private HttpEndpoints(SelectorHttpServer.Listener listener) {
    this.listener = listener;
  }

  /** Starts serving on the port (0: any free port); other paths get 404. */
  public static HttpEndpoints start(String host, int port, Map<String, Endpoint> endpoints)
      throws IOException {
    Map<String, Endpoint> byPath = Map.copyOf(endpoints);
    return new HttpEndpoints(
        SelectorHttpServer.listen(
            new InetSocketAddress(host, port),
            request -> {
              Endpoint endpoint = byPath.get(request.path());
              if (endpoint == null) {
                return text(404, "no endpoint " + request.path());
              }
              var body = new ByteArrayOutputStream();
              int code;
              try {
                code = endpoint.handle(body);
              } catch (IOException | RuntimeException e) {
                return text(500, String.valueOf(e));
              }
              return new SelectorHttpServer.Response(
                  code, Map.of("Content-Type", CONTENT_TYPE), body.toByteArray());
            }));
  }

  private static SelectorHttpServer.Response text(int code, String body) {
    return new SelectorHttpServer.Response(
        code, Map.of("Content-Type", CONTENT_TYPE), body.getBytes(StandardCharsets.UTF_8));
  }

  public int port() {
    return listener.port();
  }

  @Override
  public void close() {
    listener.close();
  }
}
