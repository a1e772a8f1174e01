package io.gpuoperator.node.toolkit;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;

/**
 * A stand-in runtime daemon for RuntimeRestarterTest: listens on a Unix socket until a signal ends
 * it (the JVM exits with 128 + the signal number on SIGHUP, as containerd ends on it).
 */
public final class SocketDaemon {
  private SocketDaemon() {}

  public static void main(String[] args) throws Exception {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(Path.of(args[0])));
    while (true) {
      server.accept().close();
    }
  }
}
