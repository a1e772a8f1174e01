package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;
import java.util.List;
import java.util.Map;

/** The MIG manager, which applies nvidia.com/mig.config layouts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigManagerSpec extends ComponentSpec {
  @JsonPropertyDescription(
      "ConfigMap of MIG layouts (mig-parted config.yaml; default default-mig-parted-config) and"
          + " the layout nodes get when they do not choose one (default all-disabled).")
  public NamedRef config;

  @JsonPropertyDescription(
      "ConfigMap of the host GPU clients stopped while MIG is reconfigured (default"
          + " default-gpu-clients).")
  public NamedRef gpuClientsConfig;

  @JsonPropertyDescription(
      "MIG configurations declared inline, by name, in mig-parted's format (the entries of"
          + " mig-configs). The operator adds them to the generated default set (a name given here"
          + " replaces the generated one) in the ConfigMap default-mig-parted-config; nodes pick one"
          + " with the label nvidia.com/mig.config. Checked against the GPUs' MIG tables before any"
          + " node is touched; ignored when config.name names a ConfigMap of your own.")
  public Map<String, List<MigConfigEntry>> configs;
}
