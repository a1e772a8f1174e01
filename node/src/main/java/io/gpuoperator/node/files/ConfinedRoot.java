package io.gpuoperator.node.files;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A directory that host paths handed to the container runtime (a CDI spec's device nodes and
 * mounts) must stay inside once the runtime, on the host, follows their symlinks. Where {@link
 * RootedPath} reads a root as if it were {@code /}, the runtime does not: a driver root's {@code
 * /dev/nvidia0 -> /dev/sda} is the host's disk to it. So a link here may lead only to a place
 * inside the root (relative, or absolute naming the root); one that leads out, loops, or a path
 * with a {@code ..} of its own is refused.
 *
 * @param name what the root is, for the error (e.g. {@code driver root})
 * @param hostRoot the root as the host, and so the spec, names it
 * @param seenAt where this process sees that directory (the same path outside a container)
 */
public record ConfinedRoot(String name, String hostRoot, Path seenAt) {
  public ConfinedRoot {
    hostRoot = trimSlash(hostRoot == null || hostRoot.isEmpty() ? "/" : hostRoot);
  }

  /** Whether {@code hostPath} is this root or lexically below it. */
  public boolean contains(String hostPath) {
    return hostRoot.equals("/") || hostPath.equals(hostRoot) || hostPath.startsWith(hostRoot + "/");
  }

  /**
   * Checks {@code hostPath} (below this root), following its links as the host would; a part that
   * does not exist ends the walk (the runtime then fails to find it, which is no escape).
   *
   * @param what what the path is, for the error (e.g. {@code device node /dev/nvidia0})
   * @throws PathOutsideRootException naming the path, the root and the link that leads out
   */
  public void check(String what, String hostPath) throws PathOutsideRootException {
    if (!hostPath.startsWith("/") || !contains(hostPath)) {
      throw refuse(what, hostPath, "it is not below the root");
    }
    List<String> own = LinkWalk.parts(hostPath);
    if (own.contains("..") || own.contains(".")) {
      throw refuse(what, hostPath, "it has a '.' or '..' component");
    }
    LinkWalk walk =
        LinkWalk.walk(
            seenAt,
            relative(hostPath),
            false,
            target -> contains(target) ? relative(target) : null);
    switch (walk.end()) {
      case ABOVE_BASE -> throw refuse(what, hostPath, "a link's '..' climbs above the root");
      case TOO_MANY_LINKS ->
          throw refuse(what, hostPath, "more than " + LinkWalk.MAX_LINKS + " links");
      case UNREADABLE_LINK ->
          throw refuse(what, hostPath, "its link " + walk.at() + " cannot be read");
      case LEFT_BASE ->
          throw refuse(what, hostPath, under(walk.link()) + " is a link to " + walk.target());
      case RESOLVED, MISSING -> {
        // Inside the root; a missing part is the runtime's to report.
      }
    }
  }

  private String under(String inRoot) {
    return hostRoot.equals("/") ? inRoot : hostRoot + inRoot;
  }

  private String relative(String hostPath) {
    return hostRoot.equals("/") ? hostPath : hostPath.substring(hostRoot.length());
  }

  private PathOutsideRootException refuse(String what, String hostPath, String why) {
    return new PathOutsideRootException(
        what
            + " ("
            + hostPath
            + ") does not stay inside the "
            + name
            + " "
            + hostRoot
            + ": "
            + why
            + "; refusing to hand it to the container runtime");
  }

  private static String trimSlash(String s) {
    return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /** A host path that a link (or its own {@code ..}) leads out of its root. */
  public static final class PathOutsideRootException extends IOException {
    PathOutsideRootException(String message) {
      super(message);
    }
  }
}
