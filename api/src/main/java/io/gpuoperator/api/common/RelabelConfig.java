package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;

/**
 * One Prometheus relabeling of a ServiceMonitor endpoint, as the Prometheus operator's
 * RelabelConfig (monitoring.coreos.com/v1), which the original's ServiceMonitorConfig embeds.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RelabelConfig {
  @JsonPropertyDescription("Labels whose values are concatenated (with separator) and matched.")
  public List<String> sourceLabels;

  @JsonPropertyDescription("Separator between the source labels' values (default ;).")
  public String separator;

  @JsonPropertyDescription("Label the result is written to (replace, hashmod, ...).")
  public String targetLabel;

  @JsonPropertyDescription("RE2 regular expression the concatenated value is matched against.")
  public String regex;

  @JsonPropertyDescription("Modulus of the hash of the source values (action hashmod).")
  public Long modulus;

  @JsonPropertyDescription("Replacement for a match; $1 and ${name} refer to groups.")
  public String replacement;

  @Pattern(
      "^(replace|Replace|keep|Keep|drop|Drop|hashmod|HashMod|labelmap|LabelMap|labeldrop"
          + "|LabelDrop|labelkeep|LabelKeep|lowercase|Lowercase|uppercase|Uppercase|keepequal"
          + "|KeepEqual|dropequal|DropEqual)$")
  @JsonPropertyDescription(
      "replace (default), keep, drop, hashmod, labelmap, labeldrop, labelkeep, lowercase,"
          + " uppercase, keepequal or dropequal.")
  public String action;
}
