package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * An image as the original's sections name one: repository/image/version, pull policy and pull
 * secrets. Operand sections ({@link ComponentSpec}) and driver-manager init containers ({@link
 * DriverManagerSpec}) both have it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ImageSpec {
  @JsonPropertyDescription(
      "Image registry and path, e.g. nvcr.io/nvidia. Set repository, image and version together,"
          + " or image alone (a full reference), or none (the operator's default image).")
  public String repository;

  @JsonPropertyDescription("Image name, or a full image reference when repository is empty.")
  public String image;

  @JsonPropertyDescription("Image tag, or a digest (sha256:...).")
  public String version;

  @JsonPropertyDescription("Always, IfNotPresent or Never; anything else means IfNotPresent.")
  public String imagePullPolicy;

  @JsonPropertyDescription("Names of image pull secrets in the operator namespace.")
  public List<String> imagePullSecrets;

  /**
   * Copies the image fields of {@code from} into {@code to} (a resource's section into the policy
   * section it is rendered as), so that an image field added here is carried everywhere.
   */
  public static void copy(ImageSpec from, ImageSpec to) {
    to.repository = from.repository;
    to.image = from.image;
    to.version = from.version;
    to.imagePullPolicy = from.imagePullPolicy;
    to.imagePullSecrets = from.imagePullSecrets;
  }
}
