package io.gpuoperator.node.toolkit;

import io.gpuoperator.node.files.AtomicFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A toolkit install that dies (halt, as on SIGKILL or power loss: no finally blocks run) right
 * before renaming the temp file over {@code args[2]}. Run in a child JVM by ToolkitFaultTest.
 */
public final class CrashingInstall {
  private CrashingInstall() {}

  public static void main(String[] args) throws Exception {
    Path config = Path.of(args[0]);
    Path dropIn = Path.of(args[1]);
    Path crashAt = Path.of(args[2]);
    AtomicFile.BeforeRename crash =
        (tmp, target) -> {
          if (target.equals(crashAt.toAbsolutePath())) {
            Runtime.getRuntime().halt(137);
          }
        };
    new ContainerdConfigurer(
            config,
            dropIn,
            new RuntimeSettings(
                RuntimeSettings.nvidiaRuntimes("nvidia", "/usr/local/nvidia/toolkit", true),
                "nvidia",
                true,
                false,
                List.of(),
                dropIn.toString()),
            Optional::empty,
            crash)
        .install();
  }
}
