package io.gpuoperator.operator.validation;

import io.gpuoperator.api.common.ImageSpec;
import io.gpuoperator.config.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * The original's rule for a section's image fields: repository, image and version together, only
 * {@code image} (a full reference used verbatim), or none (the operator's default); anything in
 * between is an error naming the missing fields.
 */
public final class ImageRules {
  private static final List<String> PULL_POLICIES = List.of("Always", "IfNotPresent", "Never");

  private ImageRules() {}

  /** Violations of the image rule for one section (empty when valid). */
  public static List<Violation> check(ImageSpec spec, String path) {
    List<Violation> out = new ArrayList<>();
    if (spec == null) {
      return out;
    }
    String policy = trim(spec.imagePullPolicy);
    if (policy != null && !PULL_POLICIES.contains(policy)) {
      // The renderer would otherwise silently use IfNotPresent (issue 19.5).
      out.add(
          new Violation(
              path + ".imagePullPolicy",
              "Unsupported value: "
                  + Values.quote(policy)
                  + ": supported values: \"Always\", \"IfNotPresent\", \"Never\""));
    }
    String repo = trim(spec.repository);
    String image = trim(spec.image);
    String version = trim(spec.version);
    boolean none = repo == null && image == null && version == null;
    boolean verbatim = repo == null && version == null && image != null;
    boolean full = repo != null && image != null && version != null;
    if (none || verbatim || full) {
      return out;
    }
    String set = describeSet(repo, image, version);
    if (repo == null) {
      out.add(new Violation(path + ".repository", "must be set together with " + set));
    }
    if (image == null) {
      out.add(new Violation(path + ".image", "must be set together with " + set));
    }
    if (version == null) {
      out.add(new Violation(path + ".version", "must be set together with " + set));
    }
    return out;
  }

  private static String describeSet(String repo, String image, String version) {
    List<String> set = new ArrayList<>();
    if (repo != null) {
      set.add("repository");
    }
    if (image != null) {
      set.add("image");
    }
    if (version != null) {
      set.add("version");
    }
    return String.join(" and ", set)
        + " (set repository, image and version together, only image as a full reference,"
        + " or none)";
  }

  private static String trim(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
