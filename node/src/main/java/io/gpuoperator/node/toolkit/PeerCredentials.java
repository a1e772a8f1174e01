package io.gpuoperator.node.toolkit;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The process behind a Unix socket ({@code SO_PEERCRED}) and signals to it, through libc: how the
 * toolkit finds the containerd it must restart without trusting a PID file.
 */
final class PeerCredentials {
  private static final int AF_UNIX = 1;
  private static final int SOCK_STREAM = 1;
  private static final int SOL_SOCKET = 1;
  private static final int SO_PEERCRED = 17;

  /** The libc calls used. */
  interface LibC extends Library {
    int socket(int domain, int type, int protocol) throws LastErrorException;

    int connect(int fd, SockaddrUn addr, int len) throws LastErrorException;

    int getsockopt(int fd, int level, int name, Ucred value, IntByReference len)
        throws LastErrorException;

    int close(int fd) throws LastErrorException;

    int kill(int pid, int signal) throws LastErrorException;
  }

  /** {@code struct sockaddr_un}. */
  @Structure.FieldOrder({"family", "path"})
  public static class SockaddrUn extends Structure {
    public short family;
    public byte[] path = new byte[108];
  }

  /** {@code struct ucred}. */
  @Structure.FieldOrder({"pid", "uid", "gid"})
  public static class Ucred extends Structure {
    public int pid;
    public int uid;
    public int gid;
  }

  private static volatile LibC libc;

  private PeerCredentials() {}

  private static LibC libc() {
    if (libc == null) {
      libc = Native.load("c", LibC.class);
    }
    return libc;
  }

  /** The PID of the process listening on the socket. */
  static int pid(Path socket) throws IOException {
    byte[] path = socket.toString().getBytes(StandardCharsets.UTF_8);
    if (path.length >= 108) {
      throw new IOException("socket path " + socket + " is too long for a Unix socket");
    }
    LibC c = libc();
    int fd;
    try {
      fd = c.socket(AF_UNIX, SOCK_STREAM, 0);
    } catch (LastErrorException e) {
      throw new IOException("socket(): errno " + e.getErrorCode(), e);
    }
    try {
      SockaddrUn addr = new SockaddrUn();
      addr.family = AF_UNIX;
      System.arraycopy(path, 0, addr.path, 0, path.length);
      addr.write();
      c.connect(fd, addr, addr.size());
      Ucred cred = new Ucred();
      IntByReference len = new IntByReference(cred.size());
      c.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, len);
      cred.read();
      if (cred.pid <= 0) {
        throw new IOException("no peer process on " + socket);
      }
      return cred.pid;
    } catch (LastErrorException e) {
      throw new IOException("cannot connect to " + socket + " (errno " + e.getErrorCode() + ")", e);
    } finally {
      try {
        c.close(fd);
      } catch (LastErrorException e) {
        // Closing a socket that failed to connect: nothing to do.
      }
    }
  }

  /** Sends a signal. */
  static void kill(int pid, int signal) throws IOException {
    try {
      libc().kill(pid, signal);
    } catch (LastErrorException e) {
      throw new IOException("kill(" + pid + ", " + signal + "): errno " + e.getErrorCode(), e);
    }
  }
}
