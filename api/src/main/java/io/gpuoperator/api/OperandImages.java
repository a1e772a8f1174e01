package io.gpuoperator.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * This project's image and version, and NVIDIA's default image for each operand (what an operand
 * runs when this project has no agent for it). Whether an operand defaults to our image is the
 * operator's decision (it knows which agents this binary has).
 */
public final class OperandImages {
  private static final String RESOURCE = "/io/gpuoperator/api/operand-images.properties";
  private static final Properties PROPS = load();

  /** Key of the validator's CUDA workload image (a pod, not an operand DaemonSet). */
  public static final String CUDA_WORKLOAD = "cuda-workload";

  /**
   * Key of NVIDIA's DRA driver image, whose {@code compute-domain-daemon} is the IMEX daemon of
   * every ComputeDomain (a DaemonSet per domain, not an operand).
   */
  public static final String COMPUTE_DOMAIN_DAEMON = "compute-domain-daemon";

  private OperandImages() {}

  public static String projectVersion() {
    return PROPS.getProperty("project.version");
  }

  /** This project's image, e.g. {@code ghcr.io/gpu-operator-java/gpu-operator:0.1.0}. */
  public static String projectImage() {
    return PROPS.getProperty("project.image");
  }

  /** NVIDIA's default image for an operand (keys as the operand names), or null if none. */
  public static String nvidiaDefault(String operand) {
    return PROPS.getProperty(operand);
  }

  /**
   * Whether an image reference is this project's image, in any registry (a mirror keeps the {@code
   * gpu-operator-java/gpu-operator} path) and with any tag or digest.
   */
  public static boolean isProjectImage(String image) {
    if (image == null || image.isBlank()) {
      return false;
    }
    String repository = repository(image.trim());
    String ours = repository(projectImage());
    String path = ours.substring(ours.indexOf('/') + 1);
    return repository.equals(ours) || repository.equals(path) || repository.endsWith("/" + path);
  }

  /**
   * An image of NVIDIA's moved to the mirror this project's image {@code ours} was pulled from: the
   * registry host replaced by the mirror's prefix (the part before {@code
   * gpu-operator-java/gpu-operator}), as the chart's {@code global.imageRegistry} moves every
   * image. Unchanged when {@code ours} is at its home registry. For images the policy cannot name
   * (the config-manager of NVIDIA's device-plugin image beside our agents).
   */
  public static String onMirrorOf(String image, String ours) {
    String home = repository(projectImage());
    String path = home.substring(home.indexOf('/') + 1);
    String repo = repository(ours.trim());
    if (image == null || repo.equals(home) || !repo.endsWith("/" + path)) {
      return image;
    }
    String prefix = repo.substring(0, repo.length() - path.length() - 1);
    int slash = image.indexOf('/');
    String first = slash < 0 ? "" : image.substring(0, slash);
    boolean host = first.contains(".") || first.contains(":") || first.equals("localhost");
    return host ? prefix + image.substring(slash) : prefix + "/" + image;
  }

  /** The reference without its tag or digest. */
  static String repository(String image) {
    String s = image;
    int at = s.indexOf('@');
    if (at >= 0) {
      s = s.substring(0, at);
    }
    int colon = s.lastIndexOf(':');
    if (colon > s.lastIndexOf('/')) {
      s = s.substring(0, colon);
    }
    return s;
  }

  private static Properties load() {
    Properties props = new Properties();
    try (InputStream in = OperandImages.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      props.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return props;
  }
}
