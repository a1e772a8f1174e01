package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.NamedRef;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import java.util.List;
import java.util.Map;

/** The GPU metrics exporter. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DcgmExporterSpec extends ComponentSpec {
  @JsonPropertyDescription("Annotations of the exporter's pods.")
  public Map<String, String> annotations;

  @JsonPropertyDescription("ConfigMap holding the metrics CSV (dcgm-metrics.csv).")
  public NamedRef config;

  @JsonPropertyDescription("The Prometheus Operator ServiceMonitor of the exporter.")
  public ServiceMonitorConfig serviceMonitor;

  @JsonPropertyDescription("The exporter's Service.")
  public Service service;

  @JsonPropertyDescription("Run in the host's PID namespace (needed for per-process metrics).")
  public Boolean hostPID;

  @JsonPropertyDescription("Map GPU metrics to HPC jobs through job files on the host.")
  public HpcJobMapping hpcJobMapping;

  @JsonPropertyDescription("Add the GPU pods' labels to their metrics.")
  public Boolean enablePodLabels;

  @JsonPropertyDescription("Add the GPU pods' UIDs to their metrics.")
  public Boolean enablePodUID;

  @JsonPropertyDescription("Only pod labels matching one of these regular expressions are added.")
  public List<String> podLabelAllowlistRegex;

  /** The exporter's Service. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Service {
    @JsonPropertyDescription("ClusterIP (default), NodePort or LoadBalancer.")
    public String type;

    @JsonPropertyDescription("Cluster or Local.")
    public String internalTrafficPolicy;
  }

  /** HPC job mapping. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class HpcJobMapping {
    @JsonPropertyDescription("Read job mapping files.")
    public Boolean enabled;

    @JsonPropertyDescription("Host directory of the job mapping files.")
    public String directory;
  }
}
