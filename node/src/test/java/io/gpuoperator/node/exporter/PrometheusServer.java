package io.gpuoperator.node.exporter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Prometheus server on 127.0.0.1, scraping one target every second, stopped by its process
 * handle on {@link #close()}.
 */
final class PrometheusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Process process;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();

  PrometheusServer(Path dir, InetSocketAddress target) throws IOException {
    Path binary = PrometheusBinaries.require("prometheus");
    port = freePort();
    Files.createDirectories(dir);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(
        config,
        "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}\n"
            + "scrape_configs:\n"
            + "  - job_name: gpu-exporter\n"
            + "    static_configs: [{targets: ['127.0.0.1:"
            + target.getPort()
            + "']}]\n");
    process =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** An instant query's {@code data.result}; fails on a query error, naming the query. */
  JsonNode query(String promql) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + port
                            + "/api/v1/query?query="
                            + URLEncoder.encode(promql, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    if (!"success".equals(body.path("status").asText())) {
      throw new AssertionError("query failed: " + promql + "\n" + r.body());
    }
    return body.path("data").path("result");
  }

  /** Whether the server answers queries yet. */
  boolean ready() {
    try {
      return http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
