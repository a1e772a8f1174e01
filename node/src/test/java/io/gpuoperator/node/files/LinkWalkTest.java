package io.gpuoperator.node.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.node.files.LinkWalk.End;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one symlink walk behind RootedPath and ConfinedRoot, and each way it ends. */
class LinkWalkTest {
  @TempDir Path base;

  @Test
  void followsRelativeAndAbsoluteLinksFromTheBase() throws Exception {
    Files.createDirectories(base.resolve("usr/lib"));
    Files.writeString(base.resolve("usr/lib/libcuda.so.550"), "");
    Files.createSymbolicLink(base.resolve("usr/lib/libcuda.so.1"), Path.of("libcuda.so.550"));
    Files.createSymbolicLink(base.resolve("lib"), Path.of("/usr/lib"));

    LinkWalk walk = LinkWalk.walk(base, "/lib/libcuda.so.1", true, target -> target);

    assertThat(walk.end()).isEqualTo(End.RESOLVED);
    assertThat(walk.at()).isEqualTo(base.resolve("usr/lib/libcuda.so.550"));
  }

  @Test
  void dotDotAtTheBaseStaysThereOnlyWhenClamped() throws Exception {
    Files.createDirectories(base.resolve("etc"));

    assertThat(LinkWalk.walk(base, "../../etc", true, t -> t).at()).isEqualTo(base.resolve("etc"));
    assertThat(LinkWalk.walk(base, "../etc", false, t -> t).end()).isEqualTo(End.ABOVE_BASE);
  }

  @Test
  void anAbsoluteLinkTheCallerRefusesEndsTheWalkNamingIt() throws Exception {
    Files.createDirectories(base.resolve("dev"));
    Files.createSymbolicLink(base.resolve("dev/nvidia0"), Path.of("/dev/sda"));

    LinkWalk walk = LinkWalk.walk(base, "/dev/nvidia0", false, target -> null);

    assertThat(walk.end()).isEqualTo(End.LEFT_BASE);
    assertThat(walk.link()).isEqualTo("/dev/nvidia0");
    assertThat(walk.target()).isEqualTo("/dev/sda");
  }

  @Test
  void aLoopStopsAfterTheKernelsLimitAndAMissingPartEndsTheWalk() throws Exception {
    Files.createSymbolicLink(base.resolve("a"), Path.of("b"));
    Files.createSymbolicLink(base.resolve("b"), Path.of("a"));

    assertThat(LinkWalk.walk(base, "a", true, t -> t).end()).isEqualTo(End.TOO_MANY_LINKS);
    assertThat(LinkWalk.walk(base, "missing/x", true, t -> t).end()).isEqualTo(End.MISSING);
  }
}
