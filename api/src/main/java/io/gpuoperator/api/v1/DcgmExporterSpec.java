package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import java.util.List;
import java.util.Map;

/** The GPU metrics exporter. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DcgmExporterSpec extends ComponentSpec {
  public Map<String, String> annotations;

  /** ConfigMap holding the metrics CSV. */
  public NamedRef config;

  public ServiceMonitorConfig serviceMonitor;
  public Service service;
  public Boolean hostPID;
  public HpcJobMapping hpcJobMapping;
  public Boolean enablePodLabels;
  public Boolean enablePodUID;
  public List<String> podLabelAllowlistRegex;

  /** The exporter's Service. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Service {
    public String type;
    public String internalTrafficPolicy;
  }

  /** HPC job mapping. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class HpcJobMapping {
    public Boolean enabled;
    public String directory;
  }
}
