package io.gpuoperator.node.cdi;

import io.gpuoperator.node.files.RootedPath;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The files of one driver installation a container needs, found under its root: libraries whose
 * names carry the driver version ({@code libcuda.so.550.54.15}) and their soname links ({@code
 * libcuda.so.1}), the user-space binaries, GSP firmware, and the IPC sockets of the driver's
 * daemons. Every path is resolved inside the root ({@link RootedPath}): a symlink pointing out of
 * it leads nowhere, never to the host's files.
 *
 * @param libraries mounts of libraries and soname links
 * @param binaries mounts of binaries
 * @param firmware mounts of GSP firmware files
 * @param sockets mounts of IPC sockets and the MPS pipe directory
 * @param libraryDirs in-root directories that hold the libraries (for the loader cache)
 */
public record DriverFiles(
    List<Found> libraries,
    List<Found> binaries,
    List<Found> firmware,
    List<Found> sockets,
    List<String> libraryDirs) {

  /** Library directories of the distributions drivers are installed on, relative to the root. */
  static final List<String> LIBRARY_DIRS =
      List.of(
          "/usr/lib64",
          "/usr/lib/x86_64-linux-gnu",
          "/usr/lib/aarch64-linux-gnu",
          "/usr/lib",
          "/lib64",
          "/lib/x86_64-linux-gnu",
          "/lib/aarch64-linux-gnu",
          "/lib");

  /** Sub-directories of a library directory that hold driver libraries too. */
  static final List<String> LIBRARY_SUBDIRS = List.of("", "/nvidia/current", "/vdpau");

  /** The driver's binaries a container may run, as NVIDIA's CDI generator lists them. */
  static final List<String> BINARIES =
      List.of(
          "nvidia-smi",
          "nvidia-debugdump",
          "nvidia-persistenced",
          "nvidia-cuda-mps-control",
          "nvidia-cuda-mps-server",
          "nvidia-imex",
          "nvidia-imex-ctl");

  static final List<String> BINARY_DIRS = List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin");

  /** IPC endpoints of the driver's daemons (persistenced, fabric manager, MPS). */
  static final List<String> SOCKETS =
      List.of(
          "/run/nvidia-persistenced/socket", "/run/nvidia-fabricmanager/socket", "/tmp/nvidia-mps");

  /**
   * A file to mount.
   *
   * @param path where it appears, in-root (also the container path)
   * @param real its real in-root location after links (what gets bind-mounted)
   */
  public record Found(String path, String real) {}

  /** Scans {@code root} for the files of driver {@code version}. */
  public static DriverFiles scan(RootedPath root, String version) throws IOException {
    if (version == null || !version.matches("[0-9]+(\\.[0-9]+)+")) {
      throw new IllegalArgumentException("driver version '" + version + "' is not like 550.54.15");
    }
    Pattern versioned = Pattern.compile("lib.+\\.so\\." + Pattern.quote(version));
    Pattern soname = Pattern.compile("lib.+\\.so\\.[0-9]+");
    Map<String, Found> libs = new LinkedHashMap<>();
    Set<String> dirs = new LinkedHashSet<>();
    Set<String> seenDirs = new LinkedHashSet<>();
    for (String base : LIBRARY_DIRS) {
      for (String sub : LIBRARY_SUBDIRS) {
        String dir = base + sub;
        Optional<Path> real = root.resolve(dir);
        if (real.isEmpty()
            || !Files.isDirectory(real.get(), LinkOption.NOFOLLOW_LINKS)
            || !seenDirs.add(real.get().toString())) {
          continue;
        }
        List<String> names = list(real.get());
        Set<String> versionedReal = new LinkedHashSet<>();
        for (String name : names) {
          if (versioned.matcher(name).matches()) {
            regularFile(root, dir + "/" + name)
                .ifPresent(
                    f -> {
                      libs.putIfAbsent(f.path(), f);
                      versionedReal.add(f.real());
                      dirs.add(dir);
                    });
          }
        }
        for (String name : names) {
          if (soname.matcher(name).matches()) {
            // Only links to a library of this driver: libcuda.so.1 -> libcuda.so.550.54.15.
            regularFile(root, dir + "/" + name)
                .filter(f -> versionedReal.contains(f.real()))
                .ifPresent(f -> libs.putIfAbsent(f.path(), f));
          }
        }
      }
    }
    List<Found> binaries = new ArrayList<>();
    for (String name : BINARIES) {
      for (String dir : BINARY_DIRS) {
        Optional<Found> f = regularFile(root, dir + "/" + name);
        if (f.isPresent()) {
          binaries.add(f.get());
          break;
        }
      }
    }
    List<Found> firmware = new ArrayList<>();
    String fwDir = "/lib/firmware/nvidia/" + version;
    Optional<Path> fw = root.resolve(fwDir);
    if (fw.isPresent() && Files.isDirectory(fw.get(), LinkOption.NOFOLLOW_LINKS)) {
      for (String name : list(fw.get())) {
        if (name.startsWith("gsp") && name.endsWith(".bin")) {
          regularFile(root, fwDir + "/" + name).ifPresent(firmware::add);
        }
      }
    }
    List<Found> sockets = new ArrayList<>();
    for (String s : SOCKETS) {
      root.resolve(s)
          .filter(p -> !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .ifPresent(p -> sockets.add(new Found(s, root.inRoot(p))));
    }
    return new DriverFiles(
        List.copyOf(libs.values()), binaries, firmware, sockets, List.copyOf(dirs));
  }

  /** The library of this driver named {@code prefix.so.<version>} (e.g. libcuda), if found. */
  public boolean hasLibrary(String name) {
    return libraries.stream()
        .anyMatch(f -> f.path().substring(f.path().lastIndexOf('/') + 1).startsWith(name + ".so."));
  }

  private static Optional<Found> regularFile(RootedPath root, String path) {
    return root.resolve(path)
        .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
        .map(p -> new Found(path, root.inRoot(p)));
  }

  private static List<String> list(Path dir) throws IOException {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        names.add(p.getFileName().toString());
      }
    }
    names.sort(null);
    return names;
  }
}
