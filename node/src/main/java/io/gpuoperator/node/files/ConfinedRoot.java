package io.gpuoperator.node.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
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
    List<String> own = parts(hostPath);
    if (own.contains("..") || own.contains(".")) {
      throw refuse(what, hostPath, "it has a '.' or '..' component");
    }
    Deque<String> todo = new ArrayDeque<>(parts(relative(hostPath)));
    List<String> done = new ArrayList<>();
    int links = 0;
    while (!todo.isEmpty()) {
      String c = todo.pollFirst();
      if (c.isEmpty() || c.equals(".")) {
        continue;
      }
      if (c.equals("..")) {
        if (done.isEmpty()) {
          throw refuse(what, hostPath, "a link's '..' climbs above the root");
        }
        done.remove(done.size() - 1);
        continue;
      }
      Path current = join(done).resolve(c);
      if (Files.isSymbolicLink(current)) {
        if (++links > RootedPath.MAX_LINKS) {
          throw refuse(what, hostPath, "more than " + RootedPath.MAX_LINKS + " links");
        }
        String target;
        try {
          target = Files.readSymbolicLink(current).toString();
        } catch (IOException e) {
          throw refuse(what, hostPath, "its link " + current + " cannot be read");
        }
        String link = "/" + String.join("/", done) + (done.isEmpty() ? "" : "/") + c;
        if (target.startsWith("/")) {
          if (!contains(target)) {
            throw refuse(what, hostPath, under(link) + " is a link to " + target);
          }
          done.clear();
          target = relative(target);
        }
        List<String> t = parts(target);
        for (int i = t.size() - 1; i >= 0; i--) {
          todo.addFirst(t.get(i));
        }
        continue;
      }
      if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
      done.add(c);
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

  private Path join(List<String> parts) {
    Path p = seenAt;
    for (String s : parts) {
      p = p.resolve(s);
    }
    return p;
  }

  private static List<String> parts(String path) {
    return Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
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
