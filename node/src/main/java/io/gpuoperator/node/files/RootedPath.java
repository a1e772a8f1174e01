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
import java.util.Optional;

/**
 * Resolves paths inside a root directory as if the root were {@code /} (like {@code openat2} with
 * {@code RESOLVE_IN_ROOT}): an absolute symlink target starts again at the root, {@code ..} stops
 * at the root, so no symlink ever leads out of it. The result has no symlink in it below the root.
 * Used for driver roots, whose files end up bind-mounted into containers (the lesson of
 * CVE-2024-0132: never follow a link out of the tree you were given).
 */
public final class RootedPath {
  /** As the kernel's limit on links followed in one lookup. */
  public static final int MAX_LINKS = 40;

  private final Path root;

  /** {@code root} must exist; it is made canonical (its own symlinks are the host's business). */
  public RootedPath(Path root) throws IOException {
    this.root = root.toRealPath();
  }

  public Path root() {
    return root;
  }

  /**
   * The real location of {@code path} (absolute or relative, both taken from the root), inside the
   * root; empty when it does not exist, or when resolving it takes more than {@value #MAX_LINKS}
   * links.
   */
  public Optional<Path> resolve(String path) {
    Deque<String> todo = new ArrayDeque<>(parts(path));
    List<String> done = new ArrayList<>();
    int links = 0;
    while (!todo.isEmpty()) {
      String c = todo.pollFirst();
      if (c.isEmpty() || c.equals(".")) {
        continue;
      }
      if (c.equals("..")) {
        if (!done.isEmpty()) {
          done.remove(done.size() - 1);
        }
        continue;
      }
      Path current = join(done).resolve(c);
      if (Files.isSymbolicLink(current)) {
        if (++links > MAX_LINKS) {
          return Optional.empty();
        }
        String target;
        try {
          target = Files.readSymbolicLink(current).toString();
        } catch (IOException e) {
          return Optional.empty();
        }
        if (target.startsWith("/")) {
          done.clear();
        }
        List<String> t = parts(target);
        for (int i = t.size() - 1; i >= 0; i--) {
          todo.addFirst(t.get(i));
        }
        continue;
      }
      if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      done.add(c);
    }
    return Optional.of(join(done));
  }

  /** The path of {@code resolved} relative to the root, as an absolute in-root path. */
  public String inRoot(Path resolved) {
    Path rel = root.relativize(resolved);
    return "/" + rel.toString();
  }

  private Path join(List<String> parts) {
    Path p = root;
    for (String s : parts) {
      p = p.resolve(s);
    }
    return p;
  }

  private static List<String> parts(String path) {
    return Arrays.asList(path.split("/"));
  }
}
