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

  /**
   * The driver's node pools and whether each may roll out (compatibility with the GPUs, kernels and
   * operands of its nodes); absent without GPU nodes or without a driver.
   */
  public List<DriverPoolStatus> driverPools;

  /**
   * GPU nodes that lack what an enabled GPUDirect feature (driver.rdma, gds, gdrcopy) needs, at
   * most 20; absent when every node has it. The driver still runs there; the feature does not.
   */
  public List<NodeRequirement> gpuDirect;

  /** Progress of the driver upgrade on this driver's nodes; absent while nothing was upgraded. */
  public UpgradeStatus driverUpgrade;
}
