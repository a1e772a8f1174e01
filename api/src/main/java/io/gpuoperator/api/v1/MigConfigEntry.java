package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.AnyType;
import java.util.List;
import java.util.Map;

/** One entry of a MIG configuration, in mig-parted's format (MigConfigSpec). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MigConfigEntry {
  @JsonPropertyDescription(
      "The GPUs this entry selects: \"all\" or a list of GPU indices, e.g. [0, 1].")
  public AnyType devices;

  @JsonProperty("mig-enabled")
  @JsonPropertyDescription("Whether MIG mode is on for the selected GPUs.")
  public Boolean migEnabled;

  @JsonProperty("mig-devices")
  @JsonPropertyDescription(
      "MIG devices per GPU: profile name to count, e.g. {\"1g.10gb\": 7}; empty when MIG is off.")
  public Map<String, Integer> migDevices;

  @JsonProperty("device-filter")
  @JsonPropertyDescription(
      "Only GPUs with these PCI ids, written 0x<DEVICE><VENDOR>, e.g. 0x233010DE (H100 80GB).")
  public List<String> deviceFilter;
}
