package io.gpuoperator.node.files;

import java.io.IOException;
import java.nio.file.Path;
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
  public static final int MAX_LINKS = LinkWalk.MAX_LINKS;

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
    LinkWalk walk = LinkWalk.walk(root, path, true, target -> target);
    return walk.end() == LinkWalk.End.RESOLVED ? Optional.of(walk.at()) : Optional.empty();
  }

  /** The path of {@code resolved} relative to the root, as an absolute in-root path. */
  public String inRoot(Path resolved) {
    Path rel = root.relativize(resolved);
    return "/" + rel.toString();
  }
}
