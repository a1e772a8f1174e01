package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.PolicyValidator;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;

/** Every operand model, in the order the operator deploys them (the original's state order). */
public final class Operands {
  private static final List<OperandModel> ORDERED =
      List.of(
          new PreRequisitesModel(),
          new OperatorMetricsModel(),
          new DriverModel(),
          new ContainerToolkitModel(),
          new OperatorValidatorModel(),
          new DevicePluginModel(),
          new DcgmModel(),
          new DcgmExporterModel(),
          new GpuFeatureDiscoveryModel(),
          new MigManagerModel(),
          new NodeStatusExporterModel());

  private Operands() {}

  /** The models in deployment order. */
  public static List<OperandModel> ordered() {
    return ORDERED;
  }

  /** The model of an operand by name. */
  public static OperandModel byName(String name) {
    return ORDERED.stream()
        .filter(m -> m.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown operand " + name));
  }

  /**
   * Renders every operand: enabled ones with their objects, stamped as the operator's ({@link
   * ManagedObjects#stamp}), disabled ones with none (the reconciler deletes what exists). All
   * rendering errors are collected into one exception.
   *
   * @throws PolicyValidationException naming every invalid field
   */
  public static List<RenderedOperand> renderAll(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<RenderedOperand> out = new ArrayList<>();
    List<Violation> violations = new ArrayList<>(PolicyValidator.validate(policy));
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations);
    }
    for (OperandModel model : ORDERED) {
      if (!model.enabled(policy, facts)) {
        out.add(new RenderedOperand(model.name(), false, List.of()));
        continue;
      }
      try {
        List<HasMetadata> objects = model.render(policy, facts, config);
        objects.forEach(o -> ManagedObjects.stamp(o, model.name(), config.namespace()));
        out.add(new RenderedOperand(model.name(), true, objects));
      } catch (PolicyValidationException e) {
        violations.addAll(e.violations());
      }
    }
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations.stream().distinct().toList());
    }
    return out;
  }
}
