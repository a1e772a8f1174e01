package io.gpuoperator.node.exporter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.1 server in which one selector thread serves every port of the JVM: accepts, reads
 * requests, calls the port's handler and writes its response, keeping connections alive between
 * requests. For the simulator, which runs an exporter per simulated node in one JVM: the JDK's
 * {@code HttpServer} costs three threads per port (its dispatcher and two timers), 456 of the
 * simulate JVM's 1,404 threads at 200 nodes. The operator serves its metrics and health ports on it
 * too (its HttpEndpoints). A real node's exporter keeps the JDK server ({@link
 * ExporterServer#start}).
 *
 * <p>Handlers run on the selector thread, so they must only hand over bytes already made (the
 * exporter's bodies are rendered by its collection loop). GET and HEAD (and any method without a
 * body) are served; a request with a body has it skipped, a chunked one is refused (501), headers
 * over 16 KiB get 431. Connections idle for a minute are closed.
 */
public final class SelectorHttpServer {
  private static final Logger LOG = LoggerFactory.getLogger(SelectorHttpServer.class);
  private static final int MAX_HEADER_BYTES = 16 * 1024;
  private static final long IDLE_NANOS = TimeUnit.MINUTES.toNanos(1);
  private static final byte[] END_OF_HEADERS = {'\r', '\n', '\r', '\n'};

  /** A request: the method, the decoded path (no query) and the headers by lower-case name. */
  public record Request(String method, String path, Map<String, String> headers) {
    /** A header's value, "" when absent. */
    public String header(String name) {
      return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
    }
  }

  /** A response: its status, headers (without Content-Length) and body. */
  public record Response(int status, Map<String, String> headers, byte[] body) {}

  /** Answers a request; runs on the selector thread, so it must not block. */
  @FunctionalInterface
  public interface Handler {
    Response handle(Request request);
  }

  /** One port being served; closing it stops accepting and closes its connections. */
  public static final class Listener implements AutoCloseable {
    private final ServerSocketChannel channel;
    private final Handler handler;
    private final int port;
    private final Set<SocketChannel> connections = new HashSet<>(); // selector thread only
    private volatile boolean closed;

    private Listener(ServerSocketChannel channel, Handler handler) throws IOException {
      this.channel = channel;
      this.handler = handler;
      this.port = ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    public int port() {
      return port;
    }

    /** Stops serving the port; returns once the port and its connections are closed. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      CountDownLatch done = new CountDownLatch(1);
      if (!LOOP.submit(
          () -> {
            shutdown();
            // A closed channel that is registered with a selector keeps its socket until the
            // selector drops its key, at the next selection: select now, so that the port is
            // free once close() returns (an exporter restarted on the same port binds it again).
            LOOP.releaseClosed();
            done.countDown();
          })) {
        shutdown(); // the loop has ended (it never does while a port is open)
        return;
      }
      try {
        if (!done.await(5, TimeUnit.SECONDS)) {
          LOG.warn("port {}: the selector did not close it within 5 s", port);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void shutdown() {
      closeQuietly(channel);
      for (SocketChannel c : List.copyOf(connections)) {
        closeQuietly(c);
      }
      connections.clear();
    }
  }

  private static final Loop LOOP = new Loop();

  private SelectorHttpServer() {}

  /** Serves {@code handler} on the address ({@code port 0}: any free port). */
  public static Listener listen(InetSocketAddress address, Handler handler) throws IOException {
    ServerSocketChannel channel = ServerSocketChannel.open();
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      channel.bind(address, 64);
      channel.configureBlocking(false);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new IOException("cannot listen on " + address + ": " + e.getMessage(), e);
    }
    Listener listener = new Listener(channel, handler);
    CountDownLatch registered = new CountDownLatch(1);
    IOException[] failure = new IOException[1];
    LOOP.start();
    LOOP.submit(
        () -> {
          try {
            channel.register(LOOP.selector, SelectionKey.OP_ACCEPT, listener);
          } catch (IOException e) {
            failure[0] = e;
          }
          registered.countDown();
        });
    try {
      registered.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      listener.close();
      throw new IOException("interrupted while starting to serve " + address, e);
    }
    if (failure[0] != null) {
      listener.close();
      throw failure[0];
    }
    return listener;
  }

  /** The JVM's one selector thread, started with the first port. */
  private static final class Loop implements Runnable {
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private Selector selector;
    private Thread thread;

    synchronized void start() throws IOException {
      if (thread == null) {
        selector = Selector.open();
        thread = new Thread(this, "http-selector");
        thread.setDaemon(true);
        thread.start();
      }
    }

    /** Runs the task on the selector thread; false when the loop is not running. */
    synchronized boolean submit(Runnable task) {
      if (thread == null) {
        return false;
      }
      tasks.add(task);
      selector.wakeup();
      return true;
    }

    /**
     * On the selector thread: releases the sockets of the channels closed since the last select.
     */
    void releaseClosed() {
      try {
        selector.selectNow(); // what it finds ready is handled in this turn of the loop
      } catch (IOException e) {
        LOG.warn("exporter HTTP selector: {}", e.toString(), e);
      }
    }

    @Override
    public void run() {
      long lastSweep = System.nanoTime();
      while (true) {
        try {
          selector.select(10_000);
          Runnable task;
          while ((task = tasks.poll()) != null) {
            task.run();
          }
          Set<SelectionKey> keys = selector.selectedKeys();
          for (SelectionKey key : keys) {
            handle(key);
          }
          keys.clear();
          long now = System.nanoTime();
          if (now - lastSweep > TimeUnit.SECONDS.toNanos(10)) {
            lastSweep = now;
            sweepIdle(now);
          }
        } catch (IOException | RuntimeException e) {
          // One bad connection or handler must not end every port's serving.
          LOG.warn("exporter HTTP selector: {}", e.toString(), e);
        }
      }
    }

    private void handle(SelectionKey key) {
      if (!key.isValid()) {
        return;
      }
      if (key.attachment() instanceof Listener listener) {
        accept(listener);
        return;
      }
      Connection c = (Connection) key.attachment();
      try {
        if (key.isWritable()) {
          if (c.flush() && c.in.position() > 0) {
            c.process(); // a pipelined request read before the response was sent
          }
        } else if (key.isReadable()) {
          c.read();
        }
      } catch (IOException | RuntimeException e) {
        c.close();
      }
    }

    private void accept(Listener listener) {
      SocketChannel s;
      try {
        while ((s = listener.channel.accept()) != null) {
          try {
            s.configureBlocking(false);
            // As the JDK server with sun.net.httpserver.nodelay (see ExporterServer.NODELAY).
            s.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Connection c = new Connection(listener, s);
            c.key = s.register(selector, SelectionKey.OP_READ, c);
            listener.connections.add(s);
          } catch (IOException e) {
            closeQuietly(s);
          }
        }
      } catch (IOException e) {
        LOG.debug("port {}: accept: {}", listener.port, e.toString());
      }
    }

    private void sweepIdle(long now) {
      for (SelectionKey key : selector.keys()) {
        if (key.attachment() instanceof Connection c
            && c.out == null
            && now - c.lastActive > IDLE_NANOS) {
          c.close();
        }
      }
    }
  }

  /** One client connection: its unparsed input and its unsent output. */
  private static final class Connection {
    private final Listener listener;
    private final SocketChannel channel;
    private SelectionKey key;
    private ByteBuffer in = ByteBuffer.allocate(1024);
    private ByteBuffer out; // a response being written, or null
    private boolean closeAfterWrite;
    private long skip; // request body bytes still to discard
    private long lastActive = System.nanoTime();

    Connection(Listener listener, SocketChannel channel) {
      this.listener = listener;
      this.channel = channel;
    }

    void read() throws IOException {
      lastActive = System.nanoTime();
      if (!in.hasRemaining()) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.min(MAX_HEADER_BYTES, in.capacity() * 4));
        in.flip();
        bigger.put(in);
        in = bigger;
      }
      int n = channel.read(in);
      if (n < 0) {
        close();
        return;
      }
      process();
      if (out == null
          && channel.isOpen()
          && !in.hasRemaining()
          && in.capacity() >= MAX_HEADER_BYTES) {
        // The largest buffer full without a whole request's headers in it.
        respond(new Response(431, Map.of(), new byte[0]), "GET", true);
      }
    }

    /** Answers every complete request buffered, one at a time (pipelined requests wait). */
    private void process() throws IOException {
      while (out == null && channel.isOpen()) {
        in.flip();
        if (skip > 0) {
          int drop = (int) Math.min(skip, in.remaining());
          in.position(in.position() + drop);
          skip -= drop;
        }
        int end = indexOf(in, END_OF_HEADERS);
        if (end < 0) {
          in.compact();
          return;
        }
        byte[] head = new byte[end - in.position()];
        in.get(head);
        in.position(in.position() + END_OF_HEADERS.length);
        in.compact();
        answer(new String(head, StandardCharsets.ISO_8859_1));
      }
    }

    private void answer(String head) throws IOException {
      String[] lines = head.split("\r\n");
      String[] requestLine = lines[0].split(" ");
      if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.")) {
        respond(new Response(400, Map.of(), new byte[0]), "GET", true);
        return;
      }
      Map<String, String> headers = new TreeMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.merge(
              lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
              lines[i].substring(colon + 1).trim(),
              (a, b) -> a + "," + b);
        }
      }
      String method = requestLine[0];
      String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
      boolean close =
          requestLine[2].equals("HTTP/1.0")
              ? !connection.contains("keep-alive")
              : connection.contains("close");
      if (headers.containsKey("transfer-encoding")) {
        respond(new Response(501, Map.of(), new byte[0]), method, true);
        return;
      }
      try {
        skip = Long.parseLong(headers.getOrDefault("content-length", "0"));
      } catch (NumberFormatException e) {
        respond(new Response(400, Map.of(), new byte[0]), method, true);
        return;
      }
      String path;
      try {
        path = URI.create(requestLine[1]).getPath();
      } catch (IllegalArgumentException e) {
        respond(new Response(400, Map.of(), new byte[0]), method, true);
        return;
      }
      Response r;
      try {
        r = listener.handler.handle(new Request(method, path == null ? "/" : path, headers));
      } catch (RuntimeException e) {
        LOG.warn("port {}: {} {} failed: {}", listener.port, method, path, e.toString());
        r = new Response(500, Map.of(), new byte[0]);
        close = true;
      }
      respond(r, method, close);
    }

    private void respond(Response r, String method, boolean close) throws IOException {
      boolean head = method.equalsIgnoreCase("HEAD");
      StringBuilder sb =
          new StringBuilder("HTTP/1.1 ")
              .append(r.status())
              .append(' ')
              .append(reason(r.status()))
              .append("\r\n");
      for (Map.Entry<String, String> h : r.headers().entrySet()) {
        sb.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
      }
      sb.append("Content-Length: ").append(r.body().length).append("\r\n");
      if (close) {
        sb.append("Connection: close\r\n");
      }
      sb.append("\r\n");
      byte[] headBytes = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
      out = ByteBuffer.allocate(headBytes.length + (head ? 0 : r.body().length));
      out.put(headBytes);
      if (!head) {
        out.put(r.body());
      }
      out.flip();
      closeAfterWrite = close;
      flush();
    }

    /** Writes what the socket takes; true when the response is sent and the connection open. */
    boolean flush() throws IOException {
      lastActive = System.nanoTime();
      channel.write(out);
      if (out.hasRemaining()) {
        key.interestOps(SelectionKey.OP_WRITE);
        return false;
      }
      out = null;
      if (closeAfterWrite) {
        close();
        return false;
      }
      key.interestOps(SelectionKey.OP_READ);
      return true;
    }

    void close() {
      listener.connections.remove(channel);
      closeQuietly(channel);
    }
  }

  private static int indexOf(ByteBuffer b, byte[] pattern) {
    outer:
    for (int i = b.position(); i <= b.limit() - pattern.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (b.get(i + j) != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      case 503 -> "Service Unavailable";
      default -> "Status " + status;
    };
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing: nothing left to do with it
    }
  }

  /** For tests: the ports being served and their open connections. */
  static List<Integer> ports() {
    List<Integer> ports = new ArrayList<>();
    if (LOOP.selector != null) {
      for (SelectionKey k : LOOP.selector.keys()) {
        if (k.isValid() && k.attachment() instanceof Listener l) {
          ports.add(l.port);
        }
      }
    }
    return ports;
  }
}
