package io.gpuoperator.node.dra;

import io.gpuoperator.node.cdi.CdiSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The transient CDI spec of one prepared claim (vendor {@code k8s.gpu.nvidia.com}, class {@code
 * claim}, file {@code k8s.gpu.nvidia.com-claim_<uid>.json}): one CDI device per allocated device,
 * named {@code <claim uid>-<device>}, with its device nodes and, under MPS, the limits the workload
 * sees as CUDA's environment variables and the claim's MPS pipe directory. The control devices that
 * exist go to the spec-wide edits. Driver libraries are not listed: they come from the toolkit's
 * CDI spec and runtime hook, as for the device plugin. Pure.
 */
public final class ClaimCdiSpecModel {
  /** Where the claim's MPS pipe and log directory appears in the container. */
  public static final String MPS_CONTAINER_DIR = "/tmp/nvidia-mps";

  private ClaimCdiSpecModel() {}

  /**
   * One device of the claim.
   *
   * @param name the device name in the pool
   * @param uuid the GPU or MIG device UUID
   * @param deviceNodes its device nodes, container paths ({@code /dev/nvidia0})
   * @param sharing how it is shared
   */
  public record Entry(String name, String uuid, List<String> deviceNodes, Sharing sharing) {}

  /** The spec's file name. */
  public static String fileName(String claimUid) {
    return DraNames.CDI_VENDOR + "-" + DraNames.CDI_CLASS + "_" + claimUid + ".json";
  }

  /** The CDI device name of a claim's device. */
  public static String deviceName(String claimUid, String device) {
    return claimUid + "-" + device;
  }

  /** The fully qualified CDI device ID handed to the kubelet. */
  public static String deviceId(String claimUid, String device) {
    return DraNames.CDI_VENDOR + "/" + DraNames.CDI_CLASS + "=" + deviceName(claimUid, device);
  }

  /**
   * The spec as a JSON-ready map.
   *
   * @param devRoot where device nodes are on the host ({@code /} normally)
   * @param mpsHostDir the claim's MPS directory on the host; used only when a device uses MPS
   * @param hostExists whether a host path exists (for the optional control devices)
   */
  public static Map<String, Object> build(
      String claimUid,
      List<Entry> entries,
      Path devRoot,
      Path mpsHostDir,
      Predicate<String> hostExists) {
    List<Map<String, Object>> devices = new ArrayList<>();
    for (Entry e : entries) {
      Map<String, Object> edits = new LinkedHashMap<>();
      // Keeps the runtime hook from injecting every GPU when an image also sets the variable.
      edits.put("env", List.of("NVIDIA_VISIBLE_DEVICES=void"));
      edits.put("deviceNodes", nodes(e.deviceNodes(), devRoot));
      Map<String, Object> device = new LinkedHashMap<>();
      device.put("name", deviceName(claimUid, e.name()));
      device.put("containerEdits", edits);
      devices.add(device);
    }
    List<String> control = new ArrayList<>();
    for (String c : CONTROL_DEVICES) {
      if (hostExists.test(hostPath(c, devRoot))) {
        control.add(c);
      }
    }
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cdiVersion", CdiSpec.VERSION);
    spec.put("kind", DraNames.CDI_VENDOR + "/" + DraNames.CDI_CLASS);
    spec.put("devices", devices);
    Map<String, Object> common = new LinkedHashMap<>();
    List<String> env = mpsEnv(entries);
    if (!env.isEmpty()) {
      common.put("env", env);
      common.put(
          "mounts",
          List.of(
              Map.of(
                  "hostPath",
                  mpsHostDir.toString(),
                  "containerPath",
                  MPS_CONTAINER_DIR,
                  "options",
                  List.of("rw", "nosuid", "nodev", "bind"))));
    }
    if (!control.isEmpty()) {
      common.put("deviceNodes", nodes(control, devRoot));
    }
    if (!common.isEmpty()) {
      spec.put("containerEdits", common);
    }
    return spec;
  }

  /** Control device nodes every GPU container needs, when they exist. */
  static final List<String> CONTROL_DEVICES =
      List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");

  /**
   * CUDA's MPS variables for the claim's devices that share by MPS (claim-wide: a container that
   * gets several of the claim's devices must see one value of each): the pipe directory, the
   * active-thread percentage, and the pinned-memory limit per device ordinal in the claim ({@code
   * 0=10240M,1=5120M}); a per-device entry keyed by the device's position or UUID overrides the
   * default.
   */
  private static List<String> mpsEnv(List<Entry> entries) {
    Integer percentage = null;
    List<String> limits = new ArrayList<>();
    boolean any = false;
    for (int i = 0; i < entries.size(); i++) {
      Sharing s = entries.get(i).sharing();
      if (s.strategy() != Sharing.Strategy.MPS || s.mps() == null) {
        continue;
      }
      any = true;
      Sharing.Mps mps = s.mps();
      if (percentage == null) {
        percentage = mps.activeThreadPercentage();
      }
      Long limit = mps.perDeviceLimitBytes().get(Integer.toString(i));
      if (limit == null && entries.get(i).uuid() != null) {
        limit = mps.perDeviceLimitBytes().get(entries.get(i).uuid());
      }
      if (limit == null) {
        limit = mps.pinnedMemoryLimitBytes();
      }
      if (limit != null) {
        limits.add(i + "=" + (limit >> 20) + "M");
      }
    }
    List<String> env = new ArrayList<>();
    if (!any) {
      return env;
    }
    env.add("CUDA_MPS_PIPE_DIRECTORY=" + MPS_CONTAINER_DIR);
    env.add("CUDA_MPS_LOG_DIRECTORY=" + MPS_CONTAINER_DIR + "/log");
    if (percentage != null) {
      env.add("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + percentage);
    }
    if (!limits.isEmpty()) {
      env.add("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" + String.join(",", limits));
    }
    return env;
  }

  private static List<Map<String, String>> nodes(List<String> paths, Path devRoot) {
    List<Map<String, String>> out = new ArrayList<>();
    for (String p : paths) {
      out.add(Map.of("path", p, "hostPath", hostPath(p, devRoot)));
    }
    return out;
  }

  /** Where {@code containerPath} is on the host, below {@code devRoot}. */
  static String hostPath(String containerPath, Path devRoot) {
    Path root = devRoot == null ? Path.of("/") : devRoot;
    return root.resolve(containerPath.substring(1)).toString();
  }
}
