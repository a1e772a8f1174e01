package io.gpuoperator.node.exporter;

import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.ProfilingMetric;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The fields to export, read from a counters CSV in the DCGM exporter's format ({@code DCGM field,
 * prometheus type, help}; {@code #} comments and blank lines ignored; type {@code label} puts the
 * value on every series as a label), so users' existing files work unchanged.
 *
 * <p>A line that does not have that shape stops start-up with the file and line number. A field
 * this exporter cannot read (an unknown name, a field that needs DCGM) is listed in {@link
 * #skipped()} for the caller to report once, and left out. Fields it reads but a GPU cannot give
 * (the GPM profiling fields before Hopper) are reported per GPU while running.
 *
 * @param metrics the fields exported as metrics, in file order
 * @param labels the label-type fields exported as labels
 * @param skipped one sentence per field left out, naming the line and why
 */
public record FieldList(List<Metric> metrics, List<String> labels, List<String> skipped) {

  /** The DCGM exporter's default counters file path (where its image ships it). */
  public static final String DCGM_DEFAULT_PATH = "/etc/dcgm-exporter/default-counters.csv";

  /** This exporter's built-in field list, used when no file is given. */
  static final String BUILT_IN = "default-counters.csv";

  /** The Prometheus type a CSV line declares. */
  public enum Type {
    GAUGE,
    COUNTER
  }

  /** One field exported as a metric family. */
  public record Metric(String name, Type type, String help) {}

  /** The profiling fields listed, which the reader then reads (GPM samples cost driver calls). */
  public List<ProfilingMetric> profiling() {
    return metrics.stream().flatMap(m -> DcgmFields.profiling(m.name()).stream()).toList();
  }

  /** The built-in list: the DCGM exporter's default set, less what needs DCGM, plus ECC. */
  public static FieldList builtIn() {
    try (InputStream in = FieldList.class.getResourceAsStream(BUILT_IN)) {
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "built-in " + BUILT_IN);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the built-in " + BUILT_IN, e);
    }
  }

  /** Reads a counters file; an unreadable or malformed file is a {@link ConfigException}. */
  public static FieldList load(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("counters file " + file + ": cannot read it: " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  /** Parses CSV text; {@code source} names it in messages. */
  public static FieldList parse(String text, String source) {
    List<Metric> metrics = new ArrayList<>();
    Set<String> labels = new LinkedHashSet<>();
    List<String> skipped = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = source + ":" + (i + 1);
      List<String> cells = cells(line, where);
      if (cells.size() != 3) {
        throw new ConfigException(
            where
                + ": expected 3 comma-separated values 'DCGM field, prometheus type, help', found "
                + cells.size()
                + ": "
                + line);
      }
      String name = cells.get(0);
      String type = cells.get(1).toLowerCase(Locale.ROOT);
      String help = cells.get(2);
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new ConfigException(
            where + ": '" + name + "' is not a field name (letters, digits and '_')");
      }
      if (!type.equals("gauge") && !type.equals("counter") && !type.equals("label")) {
        throw new ConfigException(
            where
                + ": unknown type '"
                + cells.get(1)
                + "' for "
                + name
                + ", expected gauge, counter or label");
      }
      if (!seen.add(name)) {
        throw new ConfigException(where + ": " + name + " is listed twice");
      }
      if (type.equals("label")) {
        if (name.equals(DcgmFields.DRIVER_VERSION)) {
          labels.add(name);
        } else {
          skipped.add(
              where
                  + ": "
                  + name
                  + " (label): "
                  + DcgmFields.whyNotCollected(name).orElse("not a label this exporter fills"));
        }
        continue;
      }
      var why = DcgmFields.whyNotCollected(name);
      if (why.isPresent()) {
        skipped.add(where + ": " + name + ": " + why.get());
        continue;
      }
      if (help.isEmpty()) {
        throw new ConfigException(where + ": " + name + " has no help text");
      }
      metrics.add(new Metric(name, type.equals("counter") ? Type.COUNTER : Type.GAUGE, help));
    }
    return new FieldList(List.copyOf(metrics), List.copyOf(labels), List.copyOf(skipped));
  }

  /**
   * Splits one line on commas, trimming each cell; a cell may be double-quoted (so help text can
   * hold commas), with {@code ""} for a quote, as Go's encoding/csv reads the DCGM exporter's file.
   */
  static List<String> cells(String line, String where) {
    List<String> out = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    int i = 0;
    while (true) {
      while (i < line.length() && line.charAt(i) == ' ') {
        i++;
      }
      if (i < line.length() && line.charAt(i) == '"') {
        i++;
        boolean closed = false;
        while (i < line.length()) {
          char c = line.charAt(i++);
          if (c == '"') {
            if (i < line.length() && line.charAt(i) == '"') {
              cell.append('"');
              i++;
            } else {
              closed = true;
              break;
            }
          } else {
            cell.append(c);
          }
        }
        if (!closed) {
          throw new ConfigException(where + ": unterminated quoted value: " + line);
        }
        while (i < line.length() && line.charAt(i) != ',') {
          if (line.charAt(i) != ' ') {
            throw new ConfigException(where + ": text after a quoted value: " + line);
          }
          i++;
        }
      } else {
        while (i < line.length() && line.charAt(i) != ',') {
          cell.append(line.charAt(i++));
        }
      }
      out.add(cell.toString().strip());
      cell.setLength(0);
      if (i >= line.length()) {
        return out;
      }
      i++; // the comma
    }
  }
}
