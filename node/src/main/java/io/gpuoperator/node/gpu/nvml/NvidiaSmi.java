package io.gpuoperator.node.gpu.nvml;

import io.gpuoperator.node.gpu.GpuBackendException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Finds and runs {@code nvidia-smi}, for what NVML's API has no call for (a GPU reset, a compute
 * time-slice). The project image has no nvidia-smi, so the driver's own is used: the first driver
 * root that has one, run with that root's NVML preloaded (the binary loads {@code
 * libnvidia-ml.so.1} by name, and this image's loader does not search driver roots; the original
 * validator runs it the same way), else the one on PATH (a runtime that injected the driver).
 * Finding none is a {@link GpuBackendException.NotSupported} that names every place looked at and
 * what to mount. The lookup happens at each run, so an agent that never needs nvidia-smi never
 * fails for the lack of it.
 */
public final class NvidiaSmi {
  /** The executable's name. */
  public static final String NAME = "nvidia-smi";

  private static final Path FS_ROOT = Path.of("/");

  private final List<DriverRoot> roots;
  private final String path;

  /**
   * @param roots driver roots as mounted here, in the order they are searched
   * @param pathVariable the {@code PATH} searched last (null: none)
   */
  public NvidiaSmi(List<Path> roots, String pathVariable) {
    this.roots = roots.stream().map(DriverRoot::new).toList();
    this.path = pathVariable == null ? "" : pathVariable;
  }

  /** Only this process's PATH: for agents that know no driver root. */
  public static NvidiaSmi onPath() {
    return new NvidiaSmi(List.of(), System.getenv("PATH"));
  }

  /**
   * For an agent told where the driver is on the host ({@code NVIDIA_DRIVER_ROOT}) and, when it has
   * one, where the host's {@code /} is mounted: the driver root at its own path (this project's
   * DaemonSets mount it there), the same path below the host root (how NVIDIA's MIG manager finds
   * it), then the host root itself, so a host-installed driver is found whatever the driver root
   * setting says.
   *
   * @param hostRoot the host's {@code /} as mounted here, or null
   */
  public static NvidiaSmi forDriverRoot(Path driverRoot, Path hostRoot, Map<String, String> env) {
    Set<Path> roots = new LinkedHashSet<>();
    roots.add(driverRoot.normalize());
    if (hostRoot != null) {
      roots.add(hostRoot.resolve(FS_ROOT.relativize(driverRoot.toAbsolutePath())).normalize());
      roots.add(hostRoot.normalize());
    }
    return new NvidiaSmi(List.copyOf(roots), env.get("PATH"));
  }

  /** The driver roots searched, in order. */
  List<Path> roots() {
    return roots.stream().map(DriverRoot::dir).toList();
  }

  /** Whether {@code p} is a file this process may execute (links followed). */
  static boolean isExecutableFile(Path p) {
    return Files.isRegularFile(p) && Files.isExecutable(p);
  }

  /**
   * The nvidia-smi to run, looked up now.
   *
   * @throws GpuBackendException.NotSupported when no driver root and no PATH entry has one
   */
  public Found find() {
    for (DriverRoot root : roots) {
      Optional<Path> smi = root.nvidiaSmi();
      if (smi.isPresent()) {
        return new Found(smi.get(), root.nvml().orElse(null));
      }
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      try {
        Path candidate = Path.of(dir, NAME);
        if (isExecutableFile(candidate)) {
          return new Found(candidate, null);
        }
      } catch (InvalidPathException e) {
        // A PATH entry that is no path holds no nvidia-smi; the others still count.
      }
    }
    throw new GpuBackendException.NotSupported(notFound(), null);
  }

  private String notFound() {
    String onPath = "on PATH (" + (path.isEmpty() ? "unset" : path) + ")";
    String where =
        roots.isEmpty()
            ? "no driver root was given and none " + onPath
            : "none in the driver root(s) "
                + roots.stream().map(DriverRoot::toString).collect(Collectors.joining(", "))
                + " (in "
                + DriverRoot.BINARY_DIRS.stream()
                    .map(d -> "/" + d)
                    .collect(Collectors.joining(", "))
                + ") nor "
                + onPath;
    return "no executable "
        + NAME
        + ": "
        + where
        + "; mount the host's driver root (/run/nvidia/driver for the driver container, / for a"
        + " host-installed driver) into this container and set NVIDIA_DRIVER_ROOT"
        + " (--nvidia-driver-root) to it";
  }

  /**
   * Runs nvidia-smi with {@code args} and waits up to {@code timeout} for it.
   *
   * @throws GpuBackendException.NotSupported when there is no nvidia-smi (see {@link #find})
   * @throws IOException when it cannot be started or does not exit in time (it is killed then)
   */
  public Result run(List<String> args, Duration timeout) throws IOException, InterruptedException {
    Found smi = find();
    List<String> command = new ArrayList<>();
    command.add(smi.executable().toString());
    command.addAll(args);
    String line = String.join(" ", command);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    if (smi.preload() != null) {
      pb.environment()
          .merge(
              "LD_PRELOAD",
              smi.preload().toString(),
              (old, lib) -> old.isEmpty() ? lib : lib + ":" + old);
    }
    Process p = pb.start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(line + ": no answer within " + seconds(timeout));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      throw e;
    }
    // Read after the exit: these commands answer in a few lines, well within the pipe's buffer.
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return new Result(line, p.exitValue(), output);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }

  /**
   * An nvidia-smi found.
   *
   * @param executable its path here
   * @param preload the same driver root's {@code libnvidia-ml.so.1}, put into {@code LD_PRELOAD};
   *     null when found on PATH or the root has none
   */
  public record Found(Path executable, Path preload) {}

  /**
   * How a run ended.
   *
   * @param command the command line, for messages
   * @param output stdout and stderr together, stripped
   */
  public record Result(String command, int exitCode, String output) {}
}
