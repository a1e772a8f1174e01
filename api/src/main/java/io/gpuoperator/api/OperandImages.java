package io.gpuoperator.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** The operand images this build ships with by default, and the project's own version. */
public final class OperandImages {
  private static final String RESOURCE = "/io/gpuoperator/api/operand-images.properties";
  private static final Properties PROPS = load();

  /** Operand names in the order the operator deploys them. */
  public static final String[] OPERANDS = {
    "driver",
    "driver-manager",
    "container-toolkit",
    "operator-validator",
    "device-plugin",
    "dcgm",
    "dcgm-exporter",
    "gpu-feature-discovery",
    "mig-manager",
    "node-status-exporter"
  };

  /** Key of the validator's CUDA workload image (a pod, not an operand DaemonSet). */
  public static final String CUDA_WORKLOAD = "cuda-workload";

  private OperandImages() {}

  public static String projectVersion() {
    return PROPS.getProperty("project.version");
  }

  public static String projectImage() {
    return PROPS.getProperty("project.image");
  }

  /** The default image of an operand, or null when the operand is unknown. */
  public static String defaultImage(String operand) {
    String value = PROPS.getProperty(operand);
    return value == null ? null : value.replace("${project.image}", projectImage());
  }

  /** Every operand with its default image, in deployment order. */
  public static Map<String, String> all() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String operand : OPERANDS) {
      out.put(operand, defaultImage(operand));
    }
    return out;
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
