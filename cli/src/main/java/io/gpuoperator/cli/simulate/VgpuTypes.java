package io.gpuoperator.cli.simulate;

import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The vGPU types the simulated vGPU manager offers on a GPU: time-sliced C-series (compute) types
 * in NVIDIA's naming, {@code <GPU>-<framebuffer GB>C}, for the GPU's framebuffer split in 1, 2, 4,
 * 5, 8 or 10 where that divides it evenly, each with as many instances as the split. The GPU is the
 * model's first word ({@code A100-SXM4-40GB} offers {@code A100-40C} ×1, {@code A100-20C} ×2,
 * {@code A100-10C} ×4, {@code A100-8C} ×5, {@code A100-5C} ×8, {@code A100-4C} ×10, as NVIDIA's
 * driver does for that GPU); the framebuffer is the model's {@code <n>GB}, else its memory rounded
 * up to 8 GiB. NVIDIA's own tables (Q- and B-series, MIG-backed types, names such as {@code
 * H100XM-}) are not reproduced.
 */
final class VgpuTypes {
  private static final int[] SPLITS = {1, 2, 4, 5, 8, 10};
  private static final Pattern GB = Pattern.compile("-(\\d+)GB$");

  private VgpuTypes() {}

  /** Type name → instances that fit on one GPU, largest framebuffer first. */
  static Map<String, Integer> of(HardwareProfile model) {
    String gpu = model.model().split("-")[0];
    int gb = framebufferGb(model);
    Map<String, Integer> out = new LinkedHashMap<>();
    for (int split : SPLITS) {
      if (gb % split == 0) {
        out.put(gpu + "-" + (gb / split) + "C", split);
      }
    }
    return out;
  }

  static int framebufferGb(HardwareProfile model) {
    Matcher m = GB.matcher(model.model());
    if (m.find()) {
      return Integer.parseInt(m.group(1));
    }
    long gib8 = 8L * 1024;
    return (int) ((model.memoryMiB() + gib8 - 1) / gib8 * 8);
  }
}
