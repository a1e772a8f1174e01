package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * How the control plane knows a component it started is ready: its health endpoint answers 200
 * while the process is still alive, through an HTTP client that trusts what that component serves.
 */
final class ReadinessProbe {
  private ReadinessProbe() {}

  /**
   * Waits until {@code uri} answers 200 (with a bearer token when not null); fails with the end of
   * the process's log when it exits first or the time runs out.
   */
  static void await(
      ManagedProcess process, URI uri, HttpClient http, String token, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            process.name()
                + " exited before it was ready; last lines of its log:\n"
                + process.logTail(30));
      }
      try {
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5));
        if (token != null) {
          req.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200) {
          return;
        }
        last = resp.statusCode() + " " + resp.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(200);
    }
    throw new IOException(
        process.name()
            + " not ready at "
            + uri
            + " after "
            + timeout.toSeconds()
            + " s ("
            + last
            + "); last lines of its log:\n"
            + process.logTail(30));
  }

  // The readiness probes speak HTTP/1.1: the 1.36 controller-manager and scheduler answer a Java
  // HTTP/2 probe of /healthz with GOAWAY until their authentication delegate is up, and never
  // after.
  static HttpClient plainHttp() {
    return http11().build();
  }

  private static HttpClient.Builder http11() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2));
  }

  static HttpClient trustingHttp(Path caCert) throws IOException {
    try (var in = Files.newInputStream(caCert)) {
      X509Certificate ca =
          (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      ks.setCertificateEntry("ca", ca);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      return http11().sslContext(ssl).build();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot trust " + caCert + ": " + e, e);
    }
  }

  /** Controller-manager and scheduler serve self-signed certificates; only liveness is checked. */
  static HttpClient insecureHttp() throws IOException {
    try {
      TrustManager trustAll =
          new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
              return new X509Certificate[0];
            }
          };
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, new TrustManager[] {trustAll}, null);
      return http11().sslContext(ssl).build();
    } catch (Exception e) {
      throw new IOException(e);
    }
  }
}
