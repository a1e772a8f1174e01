package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import java.util.Map;

/** How a Prometheus Operator ServiceMonitor for a component is rendered. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServiceMonitorConfig {
  @JsonPropertyDescription(
      "Create the ServiceMonitor (only while the monitoring.coreos.com ServiceMonitor CRD exists).")
  public Boolean enabled;

  @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
  @JsonPropertyDescription("Scrape interval, e.g. 15s.")
  public String interval;

  @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
  @JsonPropertyDescription("Scrape timeout, e.g. 10s; at most the interval.")
  public String scrapeTimeout;

  @JsonPropertyDescription("Keep the target's labels when they clash with Prometheus' own.")
  public Boolean honorLabels;

  @JsonPropertyDescription("Labels added to the ServiceMonitor (to match a Prometheus selector).")
  public Map<String, String> additionalLabels;

  @JsonPropertyDescription("Relabelings applied to the scraped target, in order.")
  public List<RelabelConfig> relabelings;
}
