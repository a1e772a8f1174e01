package io.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** Status shared by ClusterPolicy and NVIDIADriver. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PolicyStatus {
  @PrinterColumn(name = "Status")
  public State state;

  /** The namespace the operands run in. */
  public String namespace;

  public Long observedGeneration;

  public List<Condition> conditions = new ArrayList<>();

  public List<OperandStatus> operands;

  /** Progress of the driver upgrade on this driver's nodes; absent while nothing was upgraded. */
  public UpgradeStatus driverUpgrade;
}
