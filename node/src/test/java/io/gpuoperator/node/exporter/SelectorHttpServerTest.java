package io.gpuoperator.node.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The simulator's one-thread HTTP server, spoken to over raw sockets on 127.0.0.1. */
class SelectorHttpServerTest {
  private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

  private static SelectorHttpServer.Listener echo(String name) throws IOException {
    return SelectorHttpServer.listen(
        ANY,
        r ->
            r.path().equals("/missing")
                ? new SelectorHttpServer.Response(404, Map.of(), new byte[0])
                : new SelectorHttpServer.Response(
                    200,
                    Map.of("Content-Type", "text/plain"),
                    (name + " " + r.method() + " " + r.path() + " " + r.header("X-Test"))
                        .getBytes(StandardCharsets.UTF_8)));
  }

  /** Reads one response: the status line and headers, then Content-Length bytes (none for HEAD). */
  private static String response(InputStream in, boolean head) throws IOException {
    ByteArrayOutputStream headBytes = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + headBytes);
      }
      headBytes.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    String headers = headBytes.toString(StandardCharsets.ISO_8859_1);
    int length = Integer.parseInt(headers.replaceAll("(?s).*Content-Length: (\\d+)\r\n.*", "$1"));
    byte[] body = head ? new byte[0] : in.readNBytes(length);
    return headers + new String(body, StandardCharsets.UTF_8);
  }

  @Test
  void keepsAConnectionAliveAndAnswersPipelinedRequestsInOrder() throws Exception {
    try (var l = echo("a");
        Socket s = new Socket("127.0.0.1", l.port())) {
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      out.write("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Test: one\r\n\r\n".getBytes());
      assertThat(response(in, false))
          .startsWith("HTTP/1.1 200 OK\r\n")
          .contains("Content-Type: text/plain\r\n")
          .doesNotContain("Connection: close")
          .endsWith("\r\n\r\na GET /metrics one");
      // Two requests in one write, the second a HEAD, then one with a body that is skipped.
      out.write(
          ("GET /health?x=1 HTTP/1.1\r\nx-test: two\r\n\r\nHEAD /h HTTP/1.1\r\n\r\n"
                  + "POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET /after HTTP/1.1\r\n\r\n")
              .getBytes());
      assertThat(response(in, false)).endsWith("a GET /health two");
      assertThat(response(in, true)).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\n");
      assertThat(response(in, false)).endsWith("a POST /p ");
      assertThat(response(in, false)).endsWith("a GET /after ");
      out.write("GET /missing HTTP/1.1\r\nConnection: close\r\n\r\n".getBytes());
      assertThat(response(in, false))
          .startsWith("HTTP/1.1 404 Not Found\r\n")
          .contains("Connection: close\r\n");
      assertThat(in.read()).isEqualTo(-1); // closed as asked
    }
  }

  @Test
  void refusesWhatItDoesNotServeAndClosesTheConnection() throws Exception {
    try (var l = echo("b")) {
      for (String bad :
          List.of(
              "NONSENSE\r\n\r\n",
              "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
              // Exactly the 16 KiB the server reads, no end of headers in it: nothing left
              // unread, so the server's close is a clean one the client can read up to.
              "GET / HTTP/1.1\r\nX-Big: " + "x".repeat(16 * 1024 - 23))) {
        try (Socket s = new Socket("127.0.0.1", l.port())) {
          s.getOutputStream().write(bad.getBytes(StandardCharsets.ISO_8859_1));
          String r = response(s.getInputStream(), false);
          assertThat(r).matches("(?s)HTTP/1.1 (400|501|431) .*").contains("Connection: close");
          assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
      }
      // The port still serves others.
      try (Socket s = new Socket("127.0.0.1", l.port())) {
        s.getOutputStream().write("GET /ok HTTP/1.0\r\n\r\n".getBytes());
        assertThat(response(s.getInputStream(), false)).endsWith("b GET /ok ");
        assertThat(s.getInputStream().read()).isEqualTo(-1); // HTTP/1.0 without keep-alive
      }
    }
  }

  @Test
  void oneThreadServesAHundredPortsAndClosingOneFreesItAndEndsItsConnections() throws Exception {
    List<SelectorHttpServer.Listener> listeners = new ArrayList<>();
    try {
      listeners.add(echo("first"));
      int threadsWithOne = Thread.activeCount();
      for (int i = 0; i < 99; i++) {
        listeners.add(echo("n" + i));
      }
      assertThat(Thread.activeCount()).isLessThanOrEqualTo(threadsWithOne);
      assertThat(
              Thread.getAllStackTraces().keySet().stream()
                  .filter(t -> t.getName().equals("http-selector")))
          .hasSize(1);
      for (int i = 0; i < 99; i += 33) {
        try (Socket s = new Socket("127.0.0.1", listeners.get(i + 1).port())) {
          s.getOutputStream().write("GET /x HTTP/1.1\r\n\r\n".getBytes());
          assertThat(response(s.getInputStream(), false)).endsWith("n" + i + " GET /x ");
        }
      }
      SelectorHttpServer.Listener victim = listeners.get(5);
      try (Socket open = new Socket("127.0.0.1", victim.port())) {
        open.getOutputStream().write("GET /x HTTP/1.1\r\n\r\n".getBytes());
        response(open.getInputStream(), false);
        victim.close();
        assertThat(open.getInputStream().read()).isEqualTo(-1);
      }
      assertThatThrownBy(() -> new Socket("127.0.0.1", victim.port()).close())
          .isInstanceOf(ConnectException.class);
      assertThat(SelectorHttpServer.ports()).doesNotContain(victim.port()).hasSize(99);
    } finally {
      listeners.forEach(SelectorHttpServer.Listener::close);
    }
  }
}
