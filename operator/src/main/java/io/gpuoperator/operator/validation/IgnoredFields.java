package io.gpuoperator.operator.validation;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.VgpuDeviceManagerSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Fields of the original's ClusterPolicy this operator accepts (so upstream YAML applies unchanged)
 * but does not act on, when they are set to something that would make the original act. Reported as
 * warnings by {@code plan} and as the status condition {@code IgnoredFields}; the policy is still
 * valid. Deprecated fields the original ignores too are not listed.
 *
 * <p>The chart adds the values of NVIDIA's chart that it accepts but does not act on (they never
 * reach the spec: {@code platform.openshift}, {@code nfd.enabled} ...), one "path: reason" line
 * each, in the annotation {@link #UNSUPPORTED_VALUES}; they are reported with the fields.
 */
public final class IgnoredFields {
  /** The chart's annotation listing the unsupported chart values ("path: reason" lines). */
  public static final String UNSUPPORTED_VALUES = "gpu-operator.nvidia.com/unsupported-values";

  /** One field: when it counts as set, and what the user should know. */
  private record Rule(String path, Predicate<ClusterPolicySpec> set, String reason) {}

  private static final List<Rule> RULES =
      List.of(
          new Rule(
              "spec.vgpuDeviceManager.config.name",
              s ->
                  s.sandboxWorkloads != null
                      && Boolean.TRUE.equals(s.sandboxWorkloads.enabled)
                      && s.vgpuDeviceManager != null
                      && s.vgpuDeviceManager.isEnabled(false)
                      && (s.vgpuDeviceManager.config == null
                          || s.vgpuDeviceManager.config.name == null
                          || s.vgpuDeviceManager.config.name.isBlank()
                          || s.vgpuDeviceManager
                              .config
                              .name
                              .trim()
                              .equals(VgpuDeviceManagerSpec.ORIGINAL_DEFAULT_CONFIG)),
              "the vGPU device manager is not deployed without a ConfigMap of vGPU layouts: this"
                  + " operator does not ship the original's default-vgpu-devices-config; name your"
                  + " own (key config.yaml) in vgpuDeviceManager.config.name"));

  private IgnoredFields() {}

  /** The fields of the policy that are set but ignored, with the reason; empty for none. */
  public static List<Violation> of(ClusterPolicy policy) {
    if (policy == null || policy.getSpec() == null) {
      return List.of();
    }
    List<Violation> out = new ArrayList<>();
    RULES.stream()
        .filter(r -> r.set().test(policy.getSpec()))
        .map(r -> new Violation(r.path(), "accepted but ignored: " + r.reason()))
        .forEach(out::add);
    out.addAll(chartValues(policy.getMetadata().getAnnotations()));
    return out;
  }

  /** The chart values of the {@link #UNSUPPORTED_VALUES} annotation, as {@code values.<path>}. */
  static List<Violation> chartValues(Map<String, String> annotations) {
    String lines = annotations == null ? null : annotations.get(UNSUPPORTED_VALUES);
    if (lines == null) {
      return List.of();
    }
    List<Violation> out = new ArrayList<>();
    for (String line : lines.split("\n")) {
      int colon = line.indexOf(": ");
      if (line.isBlank()) {
        continue;
      }
      out.add(
          colon < 0
              ? new Violation("values", "not supported: " + line.trim())
              : new Violation(
                  "values." + line.substring(0, colon).trim(),
                  "not supported: " + line.substring(colon + 2).trim()));
    }
    return out;
  }
}
