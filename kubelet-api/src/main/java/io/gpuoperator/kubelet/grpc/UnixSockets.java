package io.gpuoperator.kubelet.grpc;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;

/**
 * gRPC servers and channels on Unix domain sockets (epoll, from grpc-netty-shaded), the transport
 * the kubelet uses for its device-plugin and pod-resources APIs.
 *
 * <p>All servers and channels of the JVM share two small daemon event-loop groups: a simulator runs
 * one kubelet side and several plugin servers per simulated node, and one group per server would
 * cost threads per node.
 */
public final class UnixSockets {
  /**
   * gRPC sets SO_KEEPALIVE on every channel; domain sockets do not know it and netty warns once per
   * connection. Kept in a field so the logger (and its level) is not garbage-collected.
   */
  private static final java.util.logging.Logger BOOTSTRAP_LOG =
      java.util.logging.Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap");

  static {
    BOOTSTRAP_LOG.setLevel(java.util.logging.Level.SEVERE);
  }

  /** The servers' accepting group, made on first use (a holder class loads lazily, once). */
  private static final class Boss {
    static final EventLoopGroup GROUP = group("uds-boss", 1);
  }

  /** The group every server and channel does its I/O on, made on first use. */
  private static final class Workers {
    static final EventLoopGroup GROUP = group("uds-worker", 2);
  }

  private UnixSockets() {}

  /**
   * Starts a server on the socket path, replacing a stale socket file left by an earlier process
   * (as the kubelet and the device plugin both do). Handlers run on the event loop: they must not
   * block.
   */
  public static Server serve(Path socket, BindableService... services) throws IOException {
    return serve(socket, null, services);
  }

  /**
   * Starts a server whose handlers run on the executor, for handlers that block (a DRA plugin reads
   * the claim from the API server while preparing it). A null executor runs them on the event loop,
   * as {@link #serve(Path, BindableService...)} does.
   */
  public static Server serve(Path socket, Executor executor, BindableService... services)
      throws IOException {
    checkEpoll();
    Files.createDirectories(socket.toAbsolutePath().getParent());
    Files.deleteIfExists(socket);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(Boss.GROUP)
            .workerEventLoopGroup(Workers.GROUP);
    if (executor == null) {
      // The device-plugin and pod-resources handlers answer from memory without blocking (streams
      // only keep the observer), so running them on the event loop saves a thread hop per call.
      builder.directExecutor();
    } else {
      builder.executor(executor);
    }
    for (BindableService service : services) {
      builder.addService(service);
    }
    try {
      return builder.build().start();
    } catch (IOException e) {
      throw new IOException("cannot serve gRPC on " + socket + ": " + e.getMessage(), e);
    }
  }

  /** A plaintext channel to a server listening on the socket path. */
  public static ManagedChannel channel(Path socket) {
    checkEpoll();
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        .eventLoopGroup(Workers.GROUP)
        .usePlaintext()
        .build();
  }

  private static void checkEpoll() {
    if (!Epoll.isAvailable()) {
      throw new IllegalStateException(
          "Unix-socket gRPC needs netty's native epoll transport: " + Epoll.unavailabilityCause());
    }
  }

  private static EventLoopGroup group(String name, int threads) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, true), EpollIoHandler.newFactory());
  }
}
