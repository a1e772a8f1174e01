package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuInventory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the host's {@code /dev/char/<major>:<minor>} links to every NVIDIA device node the driver
 * can have, as the original validator does (nvidia-ctk's {@code create-dev-char-symlinks
 * --create-all}). runc with systemd's cgroup driver hands a container's device rules to systemd as
 * {@code /dev/char} paths, and systemd drops a rule whose path does not resolve, so without the
 * links containers lose their GPUs at the next {@code systemctl daemon-reload}
 * (NVIDIA/gpu-operator#430). NVIDIA's nodes have no sysfs device, so udev makes no such links.
 *
 * <p>Links are made for nodes that may not exist yet (nvidia-uvm and the MIG capability nodes
 * appear on first use), so the numbers come from the driver's tables, not from the nodes: majors
 * from {@code /proc/devices}, GPU minors from NVML, capability minors from {@code mig-minors}. A
 * link already leading to its node is left alone; any other entry of that name is replaced by
 * renaming a new link over it, so the name never goes missing. A link that cannot be made is logged
 * and the others are still made, as in the original.
 *
 * @param linkDir the host's {@code /dev/char} as mounted here
 * @param procDevices {@code /proc/devices}
 * @param migMinors {@code /proc/driver/nvidia-caps/mig-minors} (absent without MIG support)
 * @param hostRoot the host's {@code /} as mounted here (for the WSL2 check)
 */
record DevCharSymlinks(Path linkDir, Path procDevices, Path migMinors, Path hostRoot) {
  private static final Logger LOG = LoggerFactory.getLogger(DevCharSymlinks.class);

  /** Where the validator's pod mounts the host's {@code /dev/char} (the original's path). */
  static final Path HOST_DEV_CHAR_MOUNT = Path.of("/host-dev-char");

  /** Where the links are on the host: a relative link target starts there. */
  static final Path HOST_DEV_CHAR = Path.of("/dev/char");

  /** Where the validator's pod mounts the host's {@code /}. */
  static final Path HOST_ROOT_MOUNT = Path.of("/host");

  /** Under a WSL2 host's root: its GPUs are no character devices (the original skips then). */
  static final String WSL_NVIDIA_SMI = "usr/lib/wsl/lib/nvidia-smi";

  // The control nodes' fixed minors: nvidia-modeset and nvidiactl on the GPU major, nvidia-uvm and
  // nvidia-uvm-tools on nvidia-uvm's.
  private static final int MODESET_MINOR = 254;
  private static final int CTL_MINOR = 255;
  private static final int UVM_MINOR = 0;
  private static final int UVM_TOOLS_MINOR = 1;

  /** The validator pod's mounts and this kernel's tables. */
  static DevCharSymlinks host() {
    return new DevCharSymlinks(
        HOST_DEV_CHAR_MOUNT,
        Path.of("/proc/devices"),
        Path.of("/proc/driver/nvidia-caps/mig-minors"),
        HOST_ROOT_MOUNT);
  }

  /**
   * A link to create.
   *
   * @param name {@code <major>:<minor>}
   * @param target the device node's path on the host
   */
  record Link(String name, Path target) {}

  /**
   * How a run went.
   *
   * @param failed names of the links that could not be made
   */
  record Outcome(int created, int replaced, int kept, List<String> failed) {}

  /**
   * The {@code dev} folder of {@code devRoot} (a host path) as this process sees it: the host's
   * through its root mount, a driver root's at its own path (the pods mount it there).
   */
  Path devHere(Path devRoot) {
    return devRoot.equals(Path.of("/")) ? hostRoot.resolve("dev") : devRoot.resolve("dev");
  }

  /** Whether the host is WSL2, whose GPUs have no device nodes to link. */
  boolean wsl() {
    Path smi = hostRoot.resolve(WSL_NVIDIA_SMI);
    try {
      return Files.isRegularFile(smi) && Files.size(smi) > 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Creates the links of these GPUs' nodes, with targets below {@code devRoot} (a host path).
   *
   * @throws ValidationException when the driver's tables cannot be read or lack a module's major
   */
  Outcome create(List<Integer> gpuMinors, Path devRoot) throws ValidationException {
    NvidiaMajors majors;
    try {
      majors = NvidiaMajors.parse(Files.readString(procDevices));
    } catch (IOException e) {
      throw new ValidationException("cannot read " + procDevices + ": " + e.getMessage(), e);
    }
    return create(majors, gpuMinors, devRoot);
  }

  /** The same, with the majors given (simulated GPUs: read off the nodes the simulation made). */
  Outcome create(NvidiaMajors majors, List<Integer> gpuMinors, Path devRoot)
      throws ValidationException {
    Map<String, Integer> caps;
    try {
      caps = GpuInventory.readCapMinors(migMinors);
    } catch (IllegalStateException e) {
      throw new ValidationException(e.getMessage(), e);
    }
    List<Link> links = plan(majors, caps, gpuMinors, devRoot);
    return apply(links);
  }

  /**
   * The links for the control nodes, each GPU's node and the MIG capability nodes mig-minors lists
   * for it ({@code gpu<minor>/gi<n>/access}, {@code .../ci<n>/access}, from 0 up to the first gap,
   * as the original counts them).
   *
   * @throws ValidationException when a module whose nodes are needed has no major
   */
  static List<Link> plan(
      NvidiaMajors majors, Map<String, Integer> caps, List<Integer> gpuMinors, Path devRoot)
      throws ValidationException {
    require(majors.gpu(), "nvidia", "the NVIDIA kernel module is not loaded");
    require(majors.uvm(), "nvidia-uvm", "load it with modprobe nvidia-uvm");
    if (!caps.isEmpty()) {
      require(majors.caps(), "nvidia-caps", "mig-minors lists MIG capabilities");
    }
    Path dev = devRoot.resolve("dev");
    List<Link> links = new ArrayList<>();
    links.add(link(majors.gpu(), MODESET_MINOR, dev.resolve("nvidia-modeset")));
    links.add(link(majors.gpu(), CTL_MINOR, dev.resolve("nvidiactl")));
    links.add(link(majors.uvm(), UVM_MINOR, dev.resolve("nvidia-uvm")));
    links.add(link(majors.uvm(), UVM_TOOLS_MINOR, dev.resolve("nvidia-uvm-tools")));
    for (String control : List.of("config", "monitor")) {
      if (caps.containsKey(control)) {
        links.add(capLink(majors, caps.get(control), dev));
      }
    }
    for (int gpu : gpuMinors) {
      if (gpu < 0) {
        continue; // NVML reports no minor (no device node) for this GPU
      }
      links.add(link(majors.gpu(), gpu, dev.resolve("nvidia" + gpu)));
      for (int gi = 0; caps.containsKey(giCap(gpu, gi)); gi++) {
        links.add(capLink(majors, caps.get(giCap(gpu, gi)), dev));
        for (int ci = 0; caps.containsKey(ciCap(gpu, gi, ci)); ci++) {
          links.add(capLink(majors, caps.get(ciCap(gpu, gi, ci)), dev));
        }
      }
    }
    return links;
  }

  private static String giCap(int gpu, int gi) {
    return "gpu" + gpu + "/gi" + gi + "/access";
  }

  private static String ciCap(int gpu, int gi, int ci) {
    return "gpu" + gpu + "/gi" + gi + "/ci" + ci + "/access";
  }

  private static Link capLink(NvidiaMajors majors, int minor, Path dev) {
    return link(majors.caps(), minor, dev.resolve("nvidia-caps/nvidia-cap" + minor));
  }

  private static Link link(int major, int minor, Path target) {
    return new Link(major + ":" + minor, target);
  }

  private static void require(Integer major, String module, String hint)
      throws ValidationException {
    if (major == null) {
      throw new ValidationException(
          "no " + module + " character device in /proc/devices (" + hint + ")");
    }
  }

  /** Makes each link that does not already lead to its node. */
  Outcome apply(List<Link> links) throws ValidationException {
    if (links.isEmpty()) {
      return new Outcome(0, 0, 0, List.of());
    }
    try {
      Files.createDirectories(linkDir);
    } catch (IOException e) {
      throw new ValidationException("cannot create " + linkDir + ": " + e.getMessage(), e);
    }
    int created = 0;
    int replaced = 0;
    int kept = 0;
    List<String> failed = new ArrayList<>();
    for (Link l : links) {
      Path path = linkDir.resolve(l.name());
      try {
        if (leadsTo(path, l.target())) {
          kept++;
          continue;
        }
        boolean existed = Files.exists(path, LinkOption.NOFOLLOW_LINKS);
        replace(path, l.target());
        LOG.info("{} {} -> {}", existed ? "replaced" : "created", path, l.target());
        if (existed) {
          replaced++;
        } else {
          created++;
        }
      } catch (IOException e) {
        LOG.warn("cannot link {} -> {}: {}", path, l.target(), e.toString());
        failed.add(l.name());
      }
    }
    return new Outcome(created, replaced, kept, List.copyOf(failed));
  }

  /** Whether {@code path} is a link that, read on the host, names {@code target}. */
  private static boolean leadsTo(Path path, Path target) throws IOException {
    if (!Files.isSymbolicLink(path)) {
      return false;
    }
    Path current = HOST_DEV_CHAR.resolve(Files.readSymbolicLink(path)).normalize();
    return current.equals(target.normalize());
  }

  /** A new link renamed over whatever has the name: rename(2) replaces it in one step. */
  private static void replace(Path path, Path target) throws IOException {
    Path tmp = path.resolveSibling("." + path.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createSymbolicLink(tmp, target);
    try {
      Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
  }
}
