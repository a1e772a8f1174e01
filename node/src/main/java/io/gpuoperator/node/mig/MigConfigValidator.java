package io.gpuoperator.node.mig;

import io.gpuoperator.node.gpu.MigGeometry;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a MIG configuration file against the hardware tables before anything touches a GPU. An
 * entry with a {@code device-filter} must fit each GPU it names (for an id shared by memory
 * variants, at least one of them); ids without a table are skipped, not errors. An entry without a
 * filter applies to whatever GPU a node has, so it is an error only when it fits none of the known
 * models. The node agent checks again against the GPUs it actually finds.
 */
public final class MigConfigValidator {
  private MigConfigValidator() {}

  /** How a configuration fared. */
  public enum Status {
    VALID,
    INVALID,
    SKIPPED
  }

  /**
   * The verdict for one named configuration.
   *
   * @param config its name
   * @param status valid, invalid, or skipped (names only GPUs without a table)
   * @param details one line per entry: what it fits, or why not
   */
  public record Verdict(String config, Status status, List<String> details) {
    /** {@code all-1g.10gb: valid (...)} on one line. */
    public String summary() {
      return config
          + ": "
          + status.name().toLowerCase(java.util.Locale.ROOT)
          + (details.isEmpty() ? "" : ": " + String.join("; ", details));
    }
  }

  /** Every configuration of the file, in file order. */
  public static List<Verdict> validate(MigConfigFile file, MigCatalog catalog) {
    List<Verdict> out = new ArrayList<>();
    file.migConfigs().forEach((name, entries) -> out.add(validate(name, entries, catalog)));
    return out;
  }

  /** The problems of the invalid configurations, one message each (empty when all are fine). */
  public static List<String> problems(MigConfigFile file, MigCatalog catalog) {
    return validate(file, catalog).stream()
        .filter(v -> v.status() == Status.INVALID)
        .map(v -> "MIG config " + v.config() + ": " + String.join("; ", v.details()))
        .toList();
  }

  static Verdict validate(String name, List<MigConfigSpec> entries, MigCatalog catalog) {
    List<String> details = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int skipped = 0;
    for (int i = 0; i < entries.size(); i++) {
      MigConfigSpec e = entries.get(i);
      String where = entries.size() == 1 ? "" : "entry " + i + " ";
      if (!e.migEnabled()) {
        details.add(where + "MIG disabled on " + selection(e));
        continue;
      }
      if (e.deviceFilter().isEmpty()) {
        Set<String> fits = new LinkedHashSet<>();
        String firstProblem = null;
        for (HardwareProfile hw : catalog.models()) {
          String problem = problem(hw, e.migDevices());
          if (problem == null) {
            fits.add(hw.model());
          } else if (firstProblem == null) {
            firstProblem = problem;
          }
        }
        if (fits.isEmpty()) {
          problems.add(
              where
                  + "("
                  + e.describe()
                  + ") fits none of the "
                  + catalog.models().size()
                  + " GPU models with MIG tables, e.g. "
                  + firstProblem);
        } else {
          details.add(where + "fits " + String.join(", ", fits));
        }
        continue;
      }
      Set<String> fits = new LinkedHashSet<>();
      List<String> unknown = new ArrayList<>();
      for (String id : e.deviceFilter()) {
        List<HardwareProfile> models = catalog.byFilterId(id);
        if (models.isEmpty()) {
          unknown.add(id);
          continue;
        }
        List<String> why = new ArrayList<>();
        for (HardwareProfile hw : models) {
          String problem = problem(hw, e.migDevices());
          if (problem == null) {
            fits.add(hw.model());
          } else {
            why.add(problem);
          }
        }
        if (why.size() == models.size()) {
          problems.add(where + "(device-filter " + id + "): " + String.join("; ", why));
        }
      }
      if (unknown.size() == e.deviceFilter().size()) {
        skipped++;
        details.add(
            where
                + "skipped: device-filter "
                + String.join(",", unknown)
                + " names no GPU with a MIG table");
      } else {
        String line = where + "fits " + String.join(", ", fits);
        if (!unknown.isEmpty()) {
          line += " (skipped " + String.join(",", unknown) + ": no MIG table)";
        }
        if (!fits.isEmpty()) {
          details.add(line);
        }
      }
    }
    if (!problems.isEmpty()) {
      return new Verdict(name, Status.INVALID, problems);
    }
    return new Verdict(name, skipped == entries.size() ? Status.SKIPPED : Status.VALID, details);
  }

  /** Why the devices do not fit one GPU of the model; null when they fit. */
  public static String problem(HardwareProfile hw, Map<String, Integer> devices) {
    var geometry = MigGeometry.of(hw);
    return geometry.isEmpty()
        ? hw.model() + " is not MIG-capable"
        : geometry.get().check(devices).problem();
  }

  private static String selection(MigConfigSpec e) {
    return e.deviceFilter().isEmpty() ? "devices " + e.devices() : e.describe();
  }
}
