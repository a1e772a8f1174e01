package io.gpuoperator.operator.validation;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import java.util.List;
import java.util.function.Predicate;

/**
 * Fields of the original's ClusterPolicy this operator accepts (so upstream YAML applies unchanged)
 * but does not act on, when they are set to something that would make the original act. Reported as
 * warnings by {@code plan} and as the status condition {@code IgnoredFields}; the policy is still
 * valid. Deprecated fields the original ignores too are not listed.
 */
public final class IgnoredFields {
  /** One field: when it counts as set, and what the user should know. */
  private record Rule(String path, Predicate<ClusterPolicySpec> set, String reason) {}

  private static final List<Rule> RULES =
      List.of(
          new Rule(
              "spec.sandboxWorkloads.enabled",
              s -> s.sandboxWorkloads != null && Boolean.TRUE.equals(s.sandboxWorkloads.enabled),
              "VM workloads: nodes get their workload labels, but the sandbox operands (vfioManager,"
                  + " vgpuManager, vgpuDeviceManager, sandboxDevicePlugin, ccManager) are not"
                  + " deployed by this operator"),
          new Rule(
              "spec.operator.use_ocp_driver_toolkit",
              s -> s.operator != null && Boolean.TRUE.equals(s.operator.useOcpDriverToolkit),
              "OpenShift's Driver Toolkit is not supported"));

  private IgnoredFields() {}

  /** The fields of the policy that are set but ignored, with the reason; empty for none. */
  public static List<Violation> of(ClusterPolicy policy) {
    if (policy == null || policy.getSpec() == null) {
      return List.of();
    }
    return RULES.stream()
        .filter(r -> r.set().test(policy.getSpec()))
        .map(r -> new Violation(r.path(), "accepted but ignored: " + r.reason()))
        .toList();
  }
}
