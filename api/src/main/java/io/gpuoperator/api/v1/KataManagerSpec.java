package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.gpuoperator.api.common.ComponentSpec;
import java.util.List;
import java.util.Map;

/** The kata manager: deprecated in the original and never deployed (as there). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KataManagerSpec extends ComponentSpec {
  @JsonPropertyDescription("The kata manager's configuration (k8s-kata-manager's Config).")
  public Config config;

  /** Where kata artifacts go and which RuntimeClasses to create. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Config {
    @JsonPropertyDescription(
        "Host directory for the artifacts (default /opt/nvidia-gpu-operator/artifacts/runtimeclasses).")
    public String artifactsDir;

    @JsonPropertyDescription("RuntimeClasses to create, with the artifacts each needs.")
    public List<RuntimeClass> runtimeClasses;
  }

  /** One kata RuntimeClass. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class RuntimeClass {
    @Required
    @JsonPropertyDescription("Name of the RuntimeClass.")
    public String name;

    @JsonPropertyDescription("Nodes the RuntimeClass is scheduled to.")
    public Map<String, String> nodeSelector;

    @Required
    @JsonPropertyDescription("Where the kata artifacts come from.")
    public Artifacts artifacts;
  }

  /** An OCI artifact of kata binaries. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Artifacts {
    @Required
    @JsonPropertyDescription("OCI reference of the artifacts.")
    public String url;

    @JsonPropertyDescription("Pull secret for the artifacts' registry.")
    public String pullSecret;
  }
}
