package io.gpuoperator.operator.runtime;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * A small HTTP server for the operator's health endpoints, /healthz and /readyz on the health
 * address (as controller-runtime serves them). Metrics have the Prometheus client's own server.
 */
public final class HttpEndpoints implements AutoCloseable {
  /** One endpoint: status code and body, computed per request. */
  public interface Endpoint {
    /** Writes the body and returns the status code. */
    int handle(OutputStream body) throws IOException;
  }

  private final HttpServer server;

  private HttpEndpoints(HttpServer server) {
    this.server = server;
  }

  /** Starts on the port (0: any free port). */
  public static HttpEndpoints start(String host, int port, Map<String, Endpoint> endpoints)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    endpoints.forEach(
        (path, endpoint) ->
            server.createContext(
                path,
                ex -> {
                  var buffer = new java.io.ByteArrayOutputStream();
                  int code;
                  try {
                    code = endpoint.handle(buffer);
                  } catch (IOException | RuntimeException e) {
                    buffer.reset();
                    buffer.writeBytes(String.valueOf(e).getBytes());
                    code = 500;
                  }
                  ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
                  ex.sendResponseHeaders(code, buffer.size());
                  try (OutputStream out = ex.getResponseBody()) {
                    buffer.writeTo(out);
                  }
                }));
    server.start();
    return new HttpEndpoints(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
