package io.gpuoperator.node.toolkit;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;

/**
 * A stand-in runtime daemon for RuntimeRestarterTest: listens on a Unix socket until a signal ends
 * it (the process dies of SIGHUP, exit value 128 + 1, as containerd ends on it).
 */
public final class SocketDaemon {
  private static final int SIGHUP = 1;

  /** libc's signal(2). */
  interface LibC extends Library {
    Pointer signal(int signal, Pointer handler);
  }

  private SocketDaemon() {}

  public static void main(String[] args) throws Exception {
    // A test run started under nohup (or any parent that ignores SIGHUP) hands the ignore down,
    // and a JVM that starts with SIGHUP ignored never handles it: back to the default action
    // (SIG_DFL is the null handler), so the signal ends the process as it ends containerd.
    Native.load("c", LibC.class).signal(SIGHUP, null);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(Path.of(args[0])));
    while (true) {
      server.accept().close();
    }
  }
}
