package io.gpuoperator.operator.compat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The driver compatibility matrix shipped with the operator ({@code driver-compatibility.yaml}):
 * which driver branches and kernel modules each GPU architecture needs, which OS and kernel
 * flavours have precompiled driver images, and which driver branch the CUDA operands need. {@link
 * #check} turns a pool's driver choice and its nodes into the reasons it cannot run, naming the
 * nodes. Pure once loaded.
 */
public final class DriverCompatibility {
  /** The matrix shipped with this build. */
  public static final String RESOURCE = "/io/gpuoperator/operator/compat/driver-compatibility.yaml";

  /** Label GPU feature discovery sets to the GPU architecture (hopper, ampere, ...). */
  public static final String FAMILY_LABEL = "nvidia.com/gpu.family";

  private static final Pattern BRANCH = Pattern.compile("^v?(\\d+)(?:\\.\\d+)*(?:-.*)?$");
  private static final Pattern CUDA = Pattern.compile("cuda[-_]?(\\d+)(?:\\.\\d+)*");

  private static final DriverCompatibility SHIPPED = load();

  private final Matrix matrix;

  private DriverCompatibility(Matrix matrix) {
    this.matrix = matrix;
  }

  /** The matrix shipped with this build. */
  public static DriverCompatibility shipped() {
    return SHIPPED;
  }

  /** A matrix from YAML text (the shipped file's format); errors name what is wrong. */
  public static DriverCompatibility parse(String yaml) {
    try {
      Matrix m =
          new ObjectMapper(new YAMLFactory())
              .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
              .readValue(yaml, Matrix.class);
      m.validate();
      return new DriverCompatibility(m);
    } catch (IOException e) {
      throw new IllegalArgumentException("driver compatibility matrix: " + e.getMessage(), e);
    }
  }

  private static DriverCompatibility load() {
    try (InputStream in = DriverCompatibility.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The driver branch of a version: 550 for 550.54.15 or 550; null for a digest or anything else
   * without a leading number.
   */
  public static Integer branch(String version) {
    if (version == null || version.startsWith("sha256:")) {
      return null;
    }
    Matcher m = BRANCH.matcher(version.trim());
    return m.matches() ? Integer.valueOf(m.group(1)) : null;
  }

  /**
   * Why the driver cannot run on the pool's nodes; empty when it can. Each problem names the nodes
   * it concerns (none for problems of the choice itself).
   *
   * @param nodeLabels the pool's nodes: name to labels
   */
  public List<Problem> check(DriverChoice choice, Map<String, Map<String, String>> nodeLabels) {
    List<Problem> out = new ArrayList<>();
    Integer branch = branch(choice.version());
    if (choice.precompiled()) {
      precompiled(choice, out);
    }
    if (branch != null && "open".equals(choice.kernelModuleType())) {
      if (branch < matrix.openKernelModulesMinBranch) {
        out.add(
            new Problem(
                "the open kernel modules need driver branch "
                    + matrix.openKernelModulesMinBranch
                    + " or newer, not "
                    + branch,
                List.of()));
      }
    }
    Map<String, TreeSet<String>> byReason = new LinkedHashMap<>();
    nodeLabels.forEach(
        (node, labels) -> {
          String family = labels == null ? null : labels.get(FAMILY_LABEL);
          Architecture a = family == null ? null : matrix.architecture(family);
          if (a == null) {
            return;
          }
          for (String reason : a.problems(branch, choice.kernelModuleType())) {
            byReason.computeIfAbsent(reason, r -> new TreeSet<>()).add(node);
          }
        });
    byReason.forEach((reason, nodes) -> out.add(new Problem(reason, List.copyOf(nodes))));
    if (branch != null && choice.cudaImage() != null) {
      Matcher m = CUDA.matcher(choice.cudaImage().toLowerCase(Locale.ROOT));
      if (m.find()) {
        int major = Integer.parseInt(m.group(1));
        for (CudaEntry c : matrix.cuda) {
          if (c.major == major && branch < c.minBranch) {
            out.add(
                new Problem(
                    "the CUDA workload "
                        + choice.cudaImage()
                        + " (CUDA "
                        + major
                        + ") needs driver branch "
                        + c.minBranch
                        + " or newer, not "
                        + branch,
                    List.of()));
          }
        }
      }
    }
    return out;
  }

  private void precompiled(DriverChoice choice, List<Problem> out) {
    if (choice.version() != null && !choice.version().trim().matches("\\d+")) {
      out.add(
          new Problem(
              "precompiled driver images are tagged by branch: driver.version must be a branch"
                  + " such as 550, not "
                  + choice.version(),
              List.of()));
    }
    if (choice.osTag() == null) {
      return; // nodes without NFD os_release labels: no image tag to look up
    }
    PrecompiledEntry os =
        matrix.precompiled.stream()
            .filter(p -> p.os.equals(choice.osTag()))
            .findFirst()
            .orElse(null);
    if (os == null) {
      out.add(
          new Problem(
              "no precompiled driver images for "
                  + choice.osTag()
                  + " (published for "
                  + String.join(", ", matrix.precompiled.stream().map(p -> p.os).toList())
                  + ")",
              List.of()));
      return;
    }
    String kernel = choice.kernel();
    String flavour = kernel == null ? "" : kernel.substring(kernel.lastIndexOf('-') + 1);
    if (kernel != null && !os.kernelFlavours.contains(flavour)) {
      out.add(
          new Problem(
              "no precompiled driver images for kernel "
                  + kernel
                  + " on "
                  + choice.osTag()
                  + " (flavours: "
                  + String.join(", ", os.kernelFlavours)
                  + ")",
              List.of()));
    }
  }

  /**
   * What a node pool is to run.
   *
   * @param version driver.version (a version, a branch or a digest)
   * @param kernelModuleType auto, open or proprietary
   * @param osTag the pool's OS tag, e.g. ubuntu22.04
   * @param kernel the pool's kernel (precompiled pools only), else null
   * @param cudaImage the validator's CUDA workload image
   */
  public record DriverChoice(
      String version,
      String kernelModuleType,
      boolean precompiled,
      String osTag,
      String kernel,
      String cudaImage) {}

  /** One reason a driver cannot run, and the nodes it applies to (empty: the whole pool). */
  public record Problem(String reason, List<String> nodes) {
    @Override
    public String toString() {
      if (nodes.isEmpty()) {
        return reason;
      }
      int shown = Math.min(nodes.size(), 5);
      String list = String.join(", ", nodes.subList(0, shown));
      return reason
          + " (nodes "
          + list
          + (nodes.size() > shown ? " and " + (nodes.size() - shown) + " more" : "")
          + ")";
    }
  }

  /** The YAML document. */
  @JsonIgnoreProperties(ignoreUnknown = false)
  static final class Matrix {
    public List<Architecture> architectures = List.of();
    public int openKernelModulesMinBranch;
    public List<PrecompiledEntry> precompiled = List.of();
    public List<CudaEntry> cuda = List.of();

    Architecture architecture(String family) {
      return architectures.stream()
          .filter(a -> a.family.equalsIgnoreCase(family))
          .findFirst()
          .orElse(null);
    }

    void validate() {
      for (Architecture a : architectures) {
        if (a.family == null || a.kernelModules == null) {
          throw new IllegalArgumentException(
              "driver compatibility matrix: every architecture needs family and kernelModules");
        }
        if (!List.of("proprietary", "any", "open").contains(a.kernelModules)) {
          throw new IllegalArgumentException(
              "driver compatibility matrix: architecture "
                  + a.family
                  + ": kernelModules '"
                  + a.kernelModules
                  + "', expected proprietary, any or open");
        }
      }
    }
  }

  /** One GPU architecture. */
  static final class Architecture {
    public String family;
    public Integer minBranch;
    public Integer maxBranch;
    public String kernelModules;

    List<String> problems(Integer branch, String moduleType) {
      List<String> out = new ArrayList<>();
      if (branch != null && minBranch != null && branch < minBranch) {
        out.add(family + " GPUs need driver branch " + minBranch + " or newer, not " + branch);
      }
      if (branch != null && maxBranch != null && branch > maxBranch) {
        out.add(
            family + " GPUs are supported up to driver branch " + maxBranch + ", not " + branch);
      }
      if ("open".equals(kernelModules) && "proprietary".equals(moduleType)) {
        out.add(family + " GPUs need the open kernel modules (kernelModuleType open or auto)");
      }
      if ("proprietary".equals(kernelModules) && "open".equals(moduleType)) {
        out.add(
            family
                + " GPUs do not work with the open kernel modules (kernelModuleType proprietary"
                + " or auto)");
      }
      return out;
    }
  }

  /** An OS with precompiled driver images. */
  static final class PrecompiledEntry {
    public String os;
    public List<String> kernelFlavours = List.of();
  }

  /** A CUDA major version's minimum driver branch. */
  static final class CudaEntry {
    public int major;
    public int minBranch;
  }
}
