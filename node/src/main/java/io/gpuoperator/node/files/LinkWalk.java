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
import java.util.function.UnaryOperator;

/**
 * One walk down a path below a base directory, a component at a time, reading each symlink itself
 * (never letting the file system follow one), as the kernel's lookup does. {@link RootedPath} and
 * {@link ConfinedRoot} differ only in what they allow: where an absolute link may lead and whether
 * a {@code ..} may climb above the base. Both decide that here, so the walk itself is written once.
 *
 * @param end how the walk ended
 * @param at the path reached ({@link End#RESOLVED}), or the link that stopped it
 * @param link that link as a path from the base ({@code /a/b}), when a link stopped it
 * @param target that link's target, when a link stopped it
 */
record LinkWalk(End end, Path at, String link, String target) {
  /** As the kernel's limit on links followed in one lookup. */
  static final int MAX_LINKS = 40;

  /** How a walk ended. */
  enum End {
    /** Every component exists; {@link #at} is the real path. */
    RESOLVED,
    /** A component does not exist. */
    MISSING,
    /** A {@code ..} would climb above the base (only when not clamped there). */
    ABOVE_BASE,
    /** More than {@value #MAX_LINKS} links. */
    TOO_MANY_LINKS,
    /** A link could not be read. */
    UNREADABLE_LINK,
    /** An absolute link leads somewhere the caller does not allow. */
    LEFT_BASE
  }

  /**
   * Walks {@code path} (its components taken from {@code base}; a leading {@code /} changes
   * nothing).
   *
   * @param clampAtBase a {@code ..} at the base stays there (as {@code /..} is {@code /});
   *     otherwise the walk ends with {@link End#ABOVE_BASE}
   * @param absolute an absolute link target as the path, from the base, to go on with; null ends
   *     the walk with {@link End#LEFT_BASE}
   */
  static LinkWalk walk(
      Path base, String path, boolean clampAtBase, UnaryOperator<String> absolute) {
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
        } else if (!clampAtBase) {
          return new LinkWalk(End.ABOVE_BASE, base, null, null);
        }
        continue;
      }
      Path current = join(base, done).resolve(c);
      if (Files.isSymbolicLink(current)) {
        String link = "/" + String.join("/", done) + (done.isEmpty() ? "" : "/") + c;
        if (++links > MAX_LINKS) {
          return new LinkWalk(End.TOO_MANY_LINKS, current, link, null);
        }
        String target;
        try {
          target = Files.readSymbolicLink(current).toString();
        } catch (IOException e) {
          return new LinkWalk(End.UNREADABLE_LINK, current, link, null);
        }
        if (target.startsWith("/")) {
          String from = absolute.apply(target);
          if (from == null) {
            return new LinkWalk(End.LEFT_BASE, current, link, target);
          }
          done.clear();
          target = from;
        }
        List<String> t = parts(target);
        for (int i = t.size() - 1; i >= 0; i--) {
          todo.addFirst(t.get(i));
        }
        continue;
      }
      if (!Files.exists(current, LinkOption.NOFOLLOW_LINKS)) {
        return new LinkWalk(End.MISSING, current, null, null);
      }
      done.add(c);
    }
    return new LinkWalk(End.RESOLVED, join(base, done), null, null);
  }

  /** The components of a path, empty ones included (a walk skips them). */
  static List<String> parts(String path) {
    return Arrays.asList(path.split("/"));
  }

  private static Path join(Path base, List<String> parts) {
    Path p = base;
    for (String s : parts) {
      p = p.resolve(s);
    }
    return p;
  }
}
