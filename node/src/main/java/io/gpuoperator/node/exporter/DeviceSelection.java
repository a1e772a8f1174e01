package io.gpuoperator.node.exporter;

import io.gpuoperator.config.Values;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which entities to export, as the DCGM exporter's {@code -d/--devices}: {@code f} (flex, the
 * default: the GPU instances of MIG-enabled GPUs, the other GPUs whole), {@code g} (whole GPUs
 * only), {@code i} (GPU instances only); {@code g} and {@code i} take an optional list of indices
 * or GPU-instance ids and ranges, e.g. {@code g:0,2-3}.
 *
 * @param mode f, g or i
 * @param ids the ids to keep; empty keeps all
 */
public record DeviceSelection(char mode, Set<Integer> ids) {
  /** The largest GPU index or GPU-instance id accepted (far above any node's). */
  static final int MAX_ID = 1023;

  /** Flex, everything. */
  public static final DeviceSelection FLEX = new DeviceSelection('f', Set.of());

  /** Parses the flag's value; IllegalArgumentException names the accepted forms. */
  public static DeviceSelection parse(String value) {
    String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
    if (v.isEmpty() || v.equals("f")) {
      return FLEX;
    }
    char mode = v.charAt(0);
    if ((mode != 'g' && mode != 'i') || (v.length() > 1 && v.charAt(1) != ':')) {
      throw new IllegalArgumentException(
          Values.quote(value)
              + " is not a device selection; expected f, g, i, or g:/i: followed by ids"
              + " (e.g. g:0,2-3)");
    }
    Set<Integer> ids = new TreeSet<>();
    if (v.length() > 2) {
      for (String part : v.substring(2).split(",")) {
        try {
          String[] range = part.strip().split("-", 2);
          int from = Integer.parseInt(range[0].strip());
          int to = range.length == 2 ? Integer.parseInt(range[1].strip()) : from;
          if (from < 0 || to < from) {
            throw new NumberFormatException();
          }
          if (to > MAX_ID) {
            // A range is expanded: 0-2000000000 must not run the exporter out of memory.
            throw new IllegalArgumentException(
                Values.quote(part) + " in " + Values.quote(value) + ": ids go from 0 to " + MAX_ID);
          }
          for (int i = from; i <= to; i++) {
            ids.add(i);
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              Values.quote(part)
                  + " in "
                  + Values.quote(value)
                  + " is not an id or a range like 2-3");
        }
      }
    }
    return new DeviceSelection(mode, Set.copyOf(ids));
  }

  /** Whether a GPU (by index) is exported whole, given whether it runs in MIG mode. */
  boolean wholeGpu(int index, boolean migEnabled) {
    return switch (mode) {
      case 'g' -> ids.isEmpty() || ids.contains(index);
      case 'i' -> false;
      default -> !migEnabled;
    };
  }

  /** Whether a GPU instance (by id) of a MIG-enabled GPU is exported. */
  boolean gpuInstance(int gpuInstanceId) {
    return switch (mode) {
      case 'g' -> false;
      case 'i' -> ids.isEmpty() || ids.contains(gpuInstanceId);
      default -> true;
    };
  }
}
