package io.gpuoperator.node.gpu;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A MIG profile name as go-nvlib writes it: {@code <G>g.<GB>gb} when the compute instance spans the
 * whole GPU instance, else {@code <C>c.<G>g.<GB>gb}, plus an attribute suffix ({@code +me}, {@code
 * +me.all}, {@code +gfx}, {@code -me}).
 *
 * @param computeSlices compute-instance slices (C)
 * @param gpuSlices GPU-instance slices (G)
 * @param memoryGb memory in the rounded GB go-nvlib computes
 * @param attributes the suffix, empty for none
 */
public record MigProfile(int computeSlices, int gpuSlices, int memoryGb, String attributes) {
  private static final Pattern NAME =
      Pattern.compile("(?:(\\d+)c\\.)?(\\d+)g\\.(\\d+)gb((?:[+-][a-z]+(?:\\.[a-z]+)*)?)");

  public MigProfile {
    if (computeSlices < 1 || gpuSlices < 1 || computeSlices > gpuSlices || memoryGb < 1) {
      throw new IllegalArgumentException(
          "invalid MIG profile: " + computeSlices + "c." + gpuSlices + "g." + memoryGb + "gb");
    }
    attributes = attributes == null ? "" : attributes;
  }

  /** The profile's name, e.g. {@code 1g.10gb}, {@code 1c.3g.40gb}, {@code 1g.10gb+me}. */
  public String name() {
    String base = gpuSlices + "g." + memoryGb + "gb";
    return (computeSlices == gpuSlices ? base : computeSlices + "c." + base) + attributes;
  }

  /** True when C == G: the form the device plugin and feature discovery expose. */
  public boolean wholeGpuInstance() {
    return computeSlices == gpuSlices;
  }

  /** The name with {@code +} replaced by {@code .}, as used in resource names and labels. */
  public String resourceSuffix() {
    return name().replace('+', '.');
  }

  @Override
  public String toString() {
    return name();
  }

  /** Parses a profile name; throws IllegalArgumentException naming the expected form. */
  public static MigProfile parse(String name) {
    Matcher m = NAME.matcher(name == null ? "" : name.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "invalid MIG profile '"
              + name
              + "': expected <G>g.<GB>gb or <C>c.<G>g.<GB>gb with an optional +me, +me.all, +gfx"
              + " or -me suffix");
    }
    int g = Integer.parseInt(m.group(2));
    int c = m.group(1) == null ? g : Integer.parseInt(m.group(1));
    return new MigProfile(c, g, Integer.parseInt(m.group(3)), m.group(4));
  }

  /**
   * go-nvlib's rounded GB of a MIG memory size: {@code round(ceil(8 * memMB * 2^20 / total) / 8 *
   * ceil(total / 2^30))}.
   */
  public static int memoryGb(long memorySizeMb, long totalMemoryBytes) {
    double fraction = Math.ceil(8.0 * memorySizeMb * (1L << 20) / totalMemoryBytes) / 8.0;
    double totalGb = Math.ceil((double) totalMemoryBytes / (1L << 30));
    return (int) Math.round(fraction * totalGb);
  }
}
