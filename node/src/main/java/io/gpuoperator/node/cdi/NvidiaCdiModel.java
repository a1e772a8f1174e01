package io.gpuoperator.node.cdi;

import io.gpuoperator.config.Parse;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInventory;
import io.gpuoperator.node.gpu.MigDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Builds the NVIDIA CDI spec of a node from its GPUs and its driver's files, as NVIDIA's {@code
 * nvidia-ctk cdi generate} lays it out: one device per GPU and MIG device under each naming
 * strategy ({@code 0}, {@code GPU-<uuid>}, {@code gpu0}; MIG {@code 0:1}, {@code MIG-<uuid>},
 * {@code mig0:1}), an {@code all} device, and spec-wide edits with the control device nodes, the
 * driver's libraries, binaries, firmware and IPC sockets mounted read-only. Pure: file facts come
 * in as {@link DriverFiles} and a predicate.
 */
public final class NvidiaCdiModel {
  /** Options of the driver's files in the container, as NVIDIA's generator mounts them. */
  static final List<String> MOUNT_OPTIONS = List.of("ro", "nosuid", "nodev", "rbind", "rprivate");

  static final List<String> SOCKET_OPTIONS =
      List.of("noexec", "nosuid", "nodev", "rbind", "rprivate");

  /** The whole environment of every hook: nothing from the container (CVE-2025-23266). */
  static final List<String> HOOK_ENV = List.of("NVIDIA_CTK_DEBUG=false");

  /** How devices are named; several strategies give one device several names. */
  public enum NameStrategy {
    INDEX,
    UUID,
    TYPE_INDEX;

    /** {@code index}, {@code uuid} or {@code type-index}. */
    public static NameStrategy parse(String s) {
      return Parse.constant("device name strategy", values()).apply(s);
    }
  }

  /**
   * What to generate.
   *
   * @param kind {@code <vendor>/<class>}
   * @param names naming strategies, in order
   * @param driverRoot the driver root on the host (mount sources are below it)
   * @param devRoot the root of {@code /dev} on the host (device node sources are below it)
   * @param hookPath absolute host path of {@code nvidia-cdi-hook}, or null for no hooks
   * @param allDevice whether to add the {@code all} device
   */
  public record Options(
      String kind,
      List<NameStrategy> names,
      String driverRoot,
      String devRoot,
      String hookPath,
      boolean allDevice) {
    public Options {
      CdiKind.check(kind);
      names = List.copyOf(new LinkedHashSet<>(names));
      if (names.isEmpty()) {
        throw new IllegalArgumentException("at least one device name strategy is needed");
      }
    }
  }

  private NvidiaCdiModel() {}

  /**
   * The spec. {@code dev} gives the real in-dev-root location of a node path (like {@code
   * /dev/nvidiactl}) when it exists there: control nodes are passed only when they exist, GPU nodes
   * (which the driver reported) also when they do not; a node that is a link is passed by its
   * target inside the dev root, never by a path a link could lead out of.
   */
  public static CdiSpec build(
      GpuInventory inventory,
      DriverFiles files,
      Options o,
      Function<String, Optional<String>> dev) {
    Map<String, CdiSpec.ContainerEdits> devices = new LinkedHashMap<>();
    Set<CdiSpec.DeviceNode> all = new LinkedHashSet<>();
    for (GpuDevice gpu : inventory.gpus()) {
      boolean mig = inventory.migEnabled().contains(gpu.index());
      if (!mig) {
        List<CdiSpec.DeviceNode> nodes = nodes(DeviceNodes.gpu(gpu), o, dev);
        all.addAll(nodes);
        for (NameStrategy s : o.names()) {
          devices.putIfAbsent(
              switch (s) {
                case INDEX -> Integer.toString(gpu.index());
                case UUID -> gpu.uuid();
                case TYPE_INDEX -> "gpu" + gpu.index();
              },
              CdiSpec.ContainerEdits.ofDeviceNodes(nodes));
        }
        continue;
      }
      // A MIG-enabled GPU is no device of its own, but "all" still gets its node: a container
      // given every GPU (the management spec's users) needs the parent to reach MIG devices, and
      // a GPU whose MIG devices are created later (DRA's dynamic partitions) has none yet.
      all.addAll(nodes(DeviceNodes.gpu(gpu), o, dev));
      for (MigDevice m : inventory.migDevices().getOrDefault(gpu.index(), List.of())) {
        List<CdiSpec.DeviceNode> nodes =
            nodes(DeviceNodes.mig(gpu, m, inventory.capMinors()), o, dev);
        all.addAll(nodes);
        String index = gpu.index() + ":" + m.index();
        for (NameStrategy s : o.names()) {
          devices.putIfAbsent(
              switch (s) {
                case INDEX -> index;
                case UUID -> m.uuid();
                case TYPE_INDEX -> "mig" + index;
              },
              CdiSpec.ContainerEdits.ofDeviceNodes(nodes));
        }
      }
    }
    List<CdiSpec.Device> out = new ArrayList<>();
    devices.forEach((name, edits) -> out.add(new CdiSpec.Device(name, edits)));
    if (o.allDevice() && !all.isEmpty()) {
      out.add(
          new CdiSpec.Device("all", CdiSpec.ContainerEdits.ofDeviceNodes(new ArrayList<>(all))));
    }
    return new CdiSpec(CdiSpec.VERSION, o.kind(), out, common(files, o, dev));
  }

  private static CdiSpec.ContainerEdits common(
      DriverFiles files, Options o, Function<String, Optional<String>> dev) {
    List<String> env = new ArrayList<>();
    // Keeps a legacy runtime hook from also injecting every GPU when the image sets the variable.
    env.add("NVIDIA_VISIBLE_DEVICES=void");
    List<CdiSpec.DeviceNode> control = new ArrayList<>();
    for (String c : DeviceNodes.CONTROL) {
      if (dev.apply(c).isPresent()) {
        control.addAll(nodes(List.of(c), o, dev));
      }
    }
    List<CdiSpec.Mount> mounts = new ArrayList<>();
    for (var group : List.of(files.libraries(), files.binaries(), files.firmware())) {
      for (DriverFiles.Found f : group) {
        mounts.add(new CdiSpec.Mount(under(o.driverRoot(), f.real()), f.path(), MOUNT_OPTIONS));
      }
    }
    for (DriverFiles.Found f : files.sockets()) {
      mounts.add(new CdiSpec.Mount(under(o.driverRoot(), f.real()), f.path(), SOCKET_OPTIONS));
    }
    List<CdiSpec.Hook> hooks = new ArrayList<>();
    if (o.hookPath() != null && !files.libraryDirs().isEmpty()) {
      List<String> args = new ArrayList<>(List.of("nvidia-cdi-hook", "update-ldcache"));
      for (String dir : files.libraryDirs()) {
        args.add("--folder");
        args.add(dir);
      }
      hooks.add(new CdiSpec.Hook("createContainer", o.hookPath(), args, HOOK_ENV));
    }
    return new CdiSpec.ContainerEdits(env, control, mounts, hooks);
  }

  private static List<CdiSpec.DeviceNode> nodes(
      List<String> paths, Options o, Function<String, Optional<String>> dev) {
    List<CdiSpec.DeviceNode> out = new ArrayList<>();
    for (String p : paths) {
      out.add(new CdiSpec.DeviceNode(p, under(o.devRoot(), dev.apply(p).orElse(p))));
    }
    return out;
  }

  /** {@code inRoot} (absolute, inside the root) placed below {@code root} on the host. */
  static String under(String root, String inRoot) {
    if (root == null || root.equals("/") || root.isEmpty()) {
      return inRoot;
    }
    String r = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
    return r + inRoot;
  }
}
