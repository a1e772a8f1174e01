package io.gpuoperator.operator.operand;

import io.gpuoperator.api.common.ImageSpec;
import io.gpuoperator.operator.validation.ImageRules;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import java.util.Set;

/**
 * Resolves an operand's image from its policy section as the original does: repository, image and
 * version together ({@code repo/image:version}, or {@code repo/image@sha256:...} for a digest);
 * only {@code image} set means a full reference used verbatim; nothing set means the operator's
 * default for that operand; anything in between is an error naming the missing fields.
 */
public final class ImageResolver {
  private static final Set<String> PULL_POLICIES = Set.of("Always", "IfNotPresent", "Never");

  private ImageResolver() {}

  /** The parts of a policy image; all null when the policy leaves the image to the operator. */
  public record Parts(String repository, String image, String version) {
    /** Whether the version is a digest ("sha256:..."). */
    public boolean digest() {
      return version != null && version.startsWith("sha256:");
    }

    /** The full reference, with {@code versionSuffix} appended to a tag (not to a digest). */
    public String reference(String versionSuffix) {
      if (repository == null && version == null) {
        return image;
      }
      if (digest()) {
        return repository + "/" + image + "@" + version;
      }
      return repository
          + "/"
          + image
          + ":"
          + version
          + (versionSuffix == null ? "" : versionSuffix);
    }

    /** Whether only a verbatim {@code image} was given. */
    public boolean verbatim() {
      return repository == null && version == null && image != null;
    }
  }

  /**
   * The policy's image parts, or null when all three are empty.
   *
   * @param path the section's field path, e.g. "spec.driver"
   * @throws PolicyValidationException when the triple is half set
   */
  public static Parts parts(ImageSpec spec, String path) {
    List<Violation> violations = ImageRules.check(spec, path);
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations);
    }
    if (spec == null) {
      return null;
    }
    String repo = trim(spec.repository);
    String image = trim(spec.image);
    String version = trim(spec.version);
    if (repo == null && image == null && version == null) {
      return null;
    }
    return new Parts(repo == null ? null : stripSlash(repo), image, version);
  }

  /**
   * The image reference for a section, falling back to {@code fallback} (the operator's default,
   * from env such as DRIVER_IMAGE) when the policy sets none.
   */
  public static String resolve(ImageSpec spec, String path, String fallback) {
    Parts parts = parts(spec, path);
    if (parts != null) {
      return parts.reference(null);
    }
    if (fallback == null || fallback.isBlank()) {
      throw new PolicyValidationException(
          List.of(
              new Violation(
                  path + ".image",
                  "no image configured: set repository, image and version, or the operator's"
                      + " image environment variable")));
    }
    return fallback;
  }

  /** Always, IfNotPresent or Never; anything else (or nothing) means IfNotPresent. */
  public static String pullPolicy(String value) {
    String v = trim(value);
    return v != null && PULL_POLICIES.contains(v) ? v : "IfNotPresent";
  }

  private static String stripSlash(String repo) {
    return repo.endsWith("/") ? repo.substring(0, repo.length() - 1) : repo;
  }

  private static String trim(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
