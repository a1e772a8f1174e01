package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import java.util.Map;

/** How a Prometheus Operator ServiceMonitor for a component is rendered. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServiceMonitorConfig {
  public Boolean enabled;

  @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
  public String interval;

  @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
  public String scrapeTimeout;

  public Boolean honorLabels;
  public Map<String, String> additionalLabels;
  public List<Map<String, Object>> relabelings;
}
