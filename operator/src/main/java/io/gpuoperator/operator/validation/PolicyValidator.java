package io.gpuoperator.operator.validation;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.common.EnvVar;
import io.gpuoperator.api.common.ServiceMonitorConfig;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.NodeTaintSpec;
import io.gpuoperator.api.v1.RemediationSpec;
import io.gpuoperator.api.v1.ValidatorSpec;
import io.gpuoperator.config.Values;
import io.gpuoperator.operator.spec.Section;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Cross-field rules of a ClusterPolicy, checked by the operator before rendering and by {@code
 * plan} offline (where no API server evaluates the CRD's rules). Each violation names the field
 * path as the API server would ({@code spec.cdi.nriPluginEnabled}). Rules that depend on which
 * operands are deployed (image fields, an operand's own settings) are the operands' own: {@code
 * Operands.validate} adds them.
 */
public final class PolicyValidator {
  private static final Pattern QUALIFIED_NAME =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern ENV_NAME = Pattern.compile("^[-._a-zA-Z][-._a-zA-Z0-9]*$");
  private static final Pattern PERCENT = Pattern.compile("^(\\d+)%$");
  private static final Set<String> SERVICE_TYPES = Set.of("ClusterIP", "NodePort", "LoadBalancer");
  private static final Set<String> TRAFFIC_POLICIES = Set.of("Cluster", "Local");

  private PolicyValidator() {}

  /** Every violation of the policy; empty when it is valid. */
  public static List<Violation> validate(ClusterPolicy policy) {
    List<Violation> out = new ArrayList<>();
    if (policy == null || policy.getSpec() == null) {
      out.add(new Violation("spec", "is required"));
      return out;
    }
    ClusterPolicySpec spec = policy.getSpec();
    cdi(spec, out);
    driver(spec, out);
    sections(spec, out);
    daemonsets(spec, out);
    nodeTaint(spec.nodeTaint, out);
    remediation(spec.remediation, out);
    hostPaths(spec, out);
    migManager(spec, out);
    dcgmExporter(spec, out);
    if (spec.operator != null && spec.operator.runtimeClass != null) {
      dnsName(spec.operator.runtimeClass, "spec.operator.runtimeClass", out);
    }
    if (spec.operator != null && spec.operator.metrics != null) {
      serviceMonitor(
          spec.operator.metrics.serviceMonitor, "spec.operator.metrics.serviceMonitor", out);
    }
    return out;
  }

  /** Throws when the policy has violations. */
  public static void check(ClusterPolicy policy) {
    List<Violation> violations = validate(policy);
    if (!violations.isEmpty()) {
      throw new PolicyValidationException(violations);
    }
  }

  private static void cdi(ClusterPolicySpec spec, List<Violation> out) {
    if (spec.cdi == null || !Boolean.TRUE.equals(spec.cdi.nriPluginEnabled)) {
      return;
    }
    if (Boolean.FALSE.equals(spec.cdi.enabled)) {
      out.add(
          new Violation(
              "spec.cdi.nriPluginEnabled", "requires spec.cdi.enabled to be true (it is false)"));
    }
    if (spec.toolkit != null && Boolean.FALSE.equals(spec.toolkit.enabled)) {
      out.add(
          new Violation(
              "spec.cdi.nriPluginEnabled",
              "requires spec.toolkit.enabled to be true (the toolkit installs the NRI plugin)"));
    }
  }

  private static void driver(ClusterPolicySpec spec, List<Violation> out) {
    var d = spec.driver;
    if (d == null) {
      return;
    }
    boolean crd = Boolean.TRUE.equals(d.useNvidiaDriverCRD);
    if (Boolean.TRUE.equals(d.usePrecompiled)
        && d.version != null
        && d.version.trim().startsWith("sha256:")) {
      out.add(
          new Violation(
              "spec.driver.version",
              "a precompiled driver needs a driver branch as version (e.g. 570), not a digest:"
                  + " the image tag is derived from it per kernel"));
    }
    if (Boolean.TRUE.equals(d.usePrecompiled)) {
      Map<String, ComponentSpec> extras = new LinkedHashMap<>();
      extras.put("spec.gds.enabled", spec.gds);
      extras.put("spec.gdrcopy.enabled", spec.gdrcopy);
      for (var e : extras.entrySet()) {
        if (e.getValue() != null && Boolean.TRUE.equals(e.getValue().enabled)) {
          out.add(
              new Violation(
                  e.getKey(),
                  "is not supported with a precompiled driver (spec.driver.usePrecompiled=true)"));
        }
      }
    }
    if (crd && Boolean.TRUE.equals(d.usePrecompiled)) {
      out.add(
          new Violation(
              "spec.driver.usePrecompiled",
              "has no effect with spec.driver.useNvidiaDriverCRD=true: set usePrecompiled on"
                  + " the NVIDIADriver resource"));
    }
    if (crd && Boolean.FALSE.equals(d.enabled)) {
      out.add(
          new Violation(
              "spec.driver.useNvidiaDriverCRD",
              "requires spec.driver.enabled to be true: NVIDIADriver resources are only used"
                  + " when the driver is managed"));
    }
    if (d.upgradePolicy != null) {
      intOrPercent(
          d.upgradePolicy.maxUnavailable, "spec.driver.upgradePolicy.maxUnavailable", true, out);
      if (d.upgradePolicy.maxParallelUpgrades != null && d.upgradePolicy.maxParallelUpgrades < 0) {
        out.add(
            new Violation(
                "spec.driver.upgradePolicy.maxParallelUpgrades",
                "must be 0 (unlimited) or more, got " + d.upgradePolicy.maxParallelUpgrades));
      }
    }
    Map<String, String> refs = new LinkedHashMap<>();
    refs.put("spec.driver.secretEnv", d.secretEnv);
    refs.put(
        "spec.driver.repoConfig.configMapName",
        d.repoConfig == null ? null : d.repoConfig.configMapName);
    refs.put("spec.driver.certConfig.name", d.certConfig == null ? null : d.certConfig.name);
    refs.put(
        "spec.driver.kernelModuleConfig.name",
        d.kernelModuleConfig == null ? null : d.kernelModuleConfig.name);
    refs.put(
        "spec.driver.licensingConfig.secretName",
        d.licensingConfig == null ? null : d.licensingConfig.secretName);
    refs.put(
        "spec.driver.licensingConfig.configMapName",
        d.licensingConfig == null ? null : d.licensingConfig.configMapName);
    refs.put(
        "spec.driver.virtualTopology.config",
        d.virtualTopology == null ? null : d.virtualTopology.config);
    // Empty means "not used" (the original's Helm chart writes "" for every unused reference).
    refs.forEach(
        (path, name) -> {
          if (name != null && !name.isBlank()) {
            dnsName(name.trim(), path, out);
          }
        });
  }

  /**
   * Env names, resources and pull secrets of every section. (Image triples are checked per operand,
   * only where it is deployed, as the original does: see Operands#validate.)
   */
  private static void sections(ClusterPolicySpec spec, List<Violation> out) {
    for (Section section : Section.values()) {
      ComponentSpec c = section.of(spec);
      if (c == null) {
        continue;
      }
      String path = section.path();
      env(c.env, path + ".env", out);
      resources(c.resources, path + ".resources", out);
      if (c.imagePullSecrets != null) {
        for (int i = 0; i < c.imagePullSecrets.size(); i++) {
          String s = c.imagePullSecrets.get(i);
          if (s == null || s.isBlank()) {
            out.add(new Violation(path + ".imagePullSecrets[" + i + "]", "must not be empty"));
          } else {
            dnsName(s.trim(), path + ".imagePullSecrets[" + i + "]", out);
          }
        }
      }
    }
    ValidatorSpec v = spec.validator;
    if (v != null) {
      Map<String, ValidatorSpec.Component> comps = new LinkedHashMap<>();
      comps.put("plugin", v.plugin);
      comps.put("toolkit", v.toolkit);
      comps.put("driver", v.driver);
      comps.put("cuda", v.cuda);
      comps.put("vfioPCI", v.vfioPCI);
      comps.put("vgpuManager", v.vgpuManager);
      comps.put("vgpuDevices", v.vgpuDevices);
      comps.forEach(
          (name, comp) -> {
            if (comp != null) {
              env(comp.env, "spec.validator." + name + ".env", out);
            }
          });
    }
  }

  private static void env(List<EnvVar> env, String path, List<Violation> out) {
    if (env == null) {
      return;
    }
    for (int i = 0; i < env.size(); i++) {
      EnvVar e = env.get(i);
      if (e == null || e.name == null || e.name.isBlank()) {
        out.add(new Violation(path + "[" + i + "].name", "is required"));
      } else if (!ENV_NAME.matcher(e.name).matches()) {
        out.add(
            new Violation(
                path + "[" + i + "].name",
                Values.quote(e.name) + " is not a valid environment variable name"));
      }
    }
  }

  private static void resources(ResourceRequirements r, String path, List<Violation> out) {
    if (r == null) {
      return;
    }
    Map<String, BigDecimal> limits = quantities(r.getLimits(), path + ".limits", out);
    Map<String, BigDecimal> requests = quantities(r.getRequests(), path + ".requests", out);
    requests.forEach(
        (name, request) -> {
          BigDecimal limit = limits.get(name);
          if (limit != null && request.compareTo(limit) > 0) {
            out.add(
                new Violation(
                    path + ".requests." + name,
                    "must be less than or equal to the limit " + r.getLimits().get(name)));
          }
        });
  }

  private static Map<String, BigDecimal> quantities(
      Map<String, Quantity> q, String path, List<Violation> out) {
    Map<String, BigDecimal> parsed = new LinkedHashMap<>();
    if (q == null) {
      return parsed;
    }
    q.forEach(
        (name, quantity) -> {
          try {
            BigDecimal value = quantity.getNumericalAmount();
            if (value.signum() < 0) {
              out.add(new Violation(path + "." + name, "must not be negative, got " + quantity));
            } else {
              parsed.put(name, value);
            }
          } catch (RuntimeException e) {
            out.add(
                new Violation(path + "." + name, Values.quote(quantity) + " is not a quantity"));
          }
        });
    return parsed;
  }

  private static void daemonsets(ClusterPolicySpec spec, List<Violation> out) {
    var d = spec.daemonsets;
    if (d == null) {
      return;
    }
    if (d.rollingUpdate != null) {
      intOrPercent(
          d.rollingUpdate.maxUnavailable,
          "spec.daemonsets.rollingUpdate.maxUnavailable",
          false,
          out);
    }
    if (d.priorityClassName != null && !d.priorityClassName.isBlank()) {
      dnsName(d.priorityClassName.trim(), "spec.daemonsets.priorityClassName", out);
    }
    labels(d.labels, "spec.daemonsets.labels", out);
    if (d.annotations != null) {
      d.annotations.keySet().stream()
          .filter(k -> !QUALIFIED_NAME.matcher(k).matches())
          .forEach(
              k ->
                  out.add(
                      new Violation(
                          "spec.daemonsets.annotations", Values.quote(k) + " is not a valid key")));
    }
    if (d.tolerations != null) {
      for (int i = 0; i < d.tolerations.size(); i++) {
        var t = d.tolerations.get(i);
        String p = "spec.daemonsets.tolerations[" + i + "]";
        if (t == null) {
          out.add(new Violation(p, "must be a toleration, got null"));
          continue;
        }
        if (t.getTolerationSeconds() != null && !"NoExecute".equals(t.getEffect())) {
          // The API server: "effect must be 'NoExecute' when `tolerationSeconds` is set".
          out.add(
              new Violation(
                  p + ".effect",
                  "must be NoExecute when tolerationSeconds is set, got "
                      + Values.quote(t.getEffect())));
        }
        if (t.getKey() != null
            && !t.getKey().isEmpty()
            && !QUALIFIED_NAME.matcher(t.getKey()).matches()) {
          out.add(new Violation(p + ".key", Values.quote(t.getKey()) + " is not a valid key"));
        }
        if ((t.getKey() == null || t.getKey().isEmpty()) && !"Exists".equals(t.getOperator())) {
          out.add(new Violation(p + ".operator", "must be Exists when key is empty"));
        }
        if (t.getOperator() != null
            && !t.getOperator().equals("Exists")
            && !t.getOperator().equals("Equal")) {
          out.add(
              new Violation(
                  p + ".operator",
                  "must be Exists or Equal, got " + Values.quote(t.getOperator())));
        }
        if ("Exists".equals(t.getOperator()) && t.getValue() != null && !t.getValue().isEmpty()) {
          out.add(new Violation(p + ".value", "must be empty when operator is Exists"));
        }
        if (t.getEffect() != null
            && !t.getEffect().isEmpty()
            && !Set.of("NoSchedule", "PreferNoSchedule", "NoExecute").contains(t.getEffect())) {
          out.add(
              new Violation(
                  p + ".effect",
                  "must be NoSchedule, PreferNoSchedule or NoExecute, got "
                      + Values.quote(t.getEffect())));
        }
      }
    }
  }

  private static void labels(Map<String, String> labels, String path, List<Violation> out) {
    if (labels == null) {
      return;
    }
    labels.forEach(
        (k, v) -> {
          if (!QUALIFIED_NAME.matcher(k).matches()) {
            out.add(new Violation(path, Values.quote(k) + " is not a valid label key"));
          } else if (v != null && (v.length() > 63 || !LABEL_VALUE.matcher(v).matches())) {
            out.add(new Violation(path + "." + k, Values.quote(v) + " is not a valid label value"));
          }
        });
  }

  private static void nodeTaint(NodeTaintSpec t, List<Violation> out) {
    if (t == null) {
      return;
    }
    if (t.key != null) {
      String key = t.key.trim();
      if (key.isEmpty() || !QUALIFIED_NAME.matcher(key).matches()) {
        out.add(
            new Violation(
                "spec.nodeTaint.key",
                Values.quote(t.key)
                    + " is not a valid taint key (a qualified name such as"
                    + " nvidia.com/gpu)"));
      }
    }
    if (t.value != null && (t.value.length() > 63 || !LABEL_VALUE.matcher(t.value).matches())) {
      out.add(
          new Violation(
              "spec.nodeTaint.value",
              Values.quote(t.value)
                  + " is not a valid taint value (at most 63 characters:"
                  + " letters, digits, '-', '_', '.')"));
    }
  }

  private static void hostPaths(ClusterPolicySpec spec, List<Violation> out) {
    var hp = spec.hostPaths;
    if (hp == null) {
      return;
    }
    absolute(hp.rootFS, "spec.hostPaths.rootFS", out);
    absolute(hp.driverInstallDir, "spec.hostPaths.driverInstallDir", out);
    absolute(hp.kubeletRootDir, "spec.hostPaths.kubeletRootDir", out);
    if (spec.toolkit != null) {
      absolute(spec.toolkit.installDir, "spec.toolkit.installDir", out);
    }
  }

  private static void absolute(String path, String field, List<Violation> out) {
    if (path != null && !path.isBlank() && !path.trim().startsWith("/")) {
      out.add(new Violation(field, "must be an absolute path, got " + Values.quote(path)));
    }
  }

  private static void migManager(ClusterPolicySpec spec, List<Violation> out) {
    var m = spec.migManager;
    if (m == null || m.config == null) {
      return;
    }
    String name = m.config.name == null ? "" : m.config.name.trim();
    if (!name.isEmpty()) {
      dnsName(name, "spec.migManager.config.name", out);
    }
  }

  private static void dcgmExporter(ClusterPolicySpec spec, List<Violation> out) {
    var e = spec.dcgmExporter;
    if (e == null) {
      return;
    }
    if (e.service != null) {
      if (e.service.type != null && !SERVICE_TYPES.contains(e.service.type.trim())) {
        out.add(
            new Violation(
                "spec.dcgmExporter.service.type",
                "must be ClusterIP, NodePort or LoadBalancer, got "
                    + Values.quote(e.service.type)));
      }
      if (e.service.internalTrafficPolicy != null
          && !TRAFFIC_POLICIES.contains(e.service.internalTrafficPolicy.trim())) {
        out.add(
            new Violation(
                "spec.dcgmExporter.service.internalTrafficPolicy",
                "must be Cluster or Local, got " + Values.quote(e.service.internalTrafficPolicy)));
      }
    }
    if (e.podLabelAllowlistRegex != null) {
      for (int i = 0; i < e.podLabelAllowlistRegex.size(); i++) {
        try {
          Pattern.compile(e.podLabelAllowlistRegex.get(i));
        } catch (RuntimeException ex) {
          out.add(
              new Violation(
                  "spec.dcgmExporter.podLabelAllowlistRegex[" + i + "]",
                  "not a valid regular expression: "
                      + ex.getMessage().lines().findFirst().orElse("")));
        }
      }
    }
    serviceMonitor(e.serviceMonitor, "spec.dcgmExporter.serviceMonitor", out);
  }

  private static void serviceMonitor(ServiceMonitorConfig sm, String path, List<Violation> out) {
    if (sm == null) {
      return;
    }
    Pattern duration = Pattern.compile("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$");
    if (sm.interval != null && !duration.matcher(sm.interval).matches()) {
      out.add(
          new Violation(
              path + ".interval", "must be a duration like 15s, got " + Values.quote(sm.interval)));
    }
    if (sm.scrapeTimeout != null && !duration.matcher(sm.scrapeTimeout).matches()) {
      out.add(
          new Violation(
              path + ".scrapeTimeout",
              "must be a duration like 10s, got " + Values.quote(sm.scrapeTimeout)));
    }
    labels(sm.additionalLabels, path + ".additionalLabels", out);
  }

  private static void remediation(RemediationSpec r, List<Violation> out) {
    if (r == null) {
      return;
    }
    intOrPercent(r.maxConcurrent, "spec.remediation.maxConcurrent", false, out);
    intOrPercent(r.maxFaultyNodes, "spec.remediation.maxFaultyNodes", false, out);
    if (r.coolDownSeconds != null && r.coolDownSeconds < 0) {
      out.add(
          new Violation(
              "spec.remediation.coolDownSeconds", "must be 0 or more, got " + r.coolDownSeconds));
    }
  }

  private static void intOrPercent(
      IntOrString v, String path, boolean zeroAllowed, List<Violation> out) {
    if (v == null) {
      return;
    }
    if (v.getIntVal() != null) {
      int n = v.getIntVal();
      if (n < 0 || (!zeroAllowed && n == 0)) {
        out.add(new Violation(path, "must be " + (zeroAllowed ? "0" : "1") + " or more, got " + n));
      }
      return;
    }
    String s = v.getStrVal() == null ? "" : v.getStrVal().trim();
    var percent = PERCENT.matcher(s);
    if (percent.matches()) {
      int p = Integer.parseInt(percent.group(1));
      if (p > 100 || (!zeroAllowed && p == 0)) {
        out.add(new Violation(path, "must be a percentage between 1% and 100%, got " + s));
      }
      return;
    }
    if (s.matches("\\d+")) {
      if (!zeroAllowed && Integer.parseInt(s) == 0) {
        out.add(new Violation(path, "must be 1 or more, got 0"));
      }
      return;
    }
    out.add(
        new Violation(
            path, "must be a number or a percentage such as 25%, got " + Values.quote(s)));
  }

  private static void dnsName(String name, String path, List<Violation> out) {
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      out.add(
          new Violation(
              path,
              Values.quote(name)
                  + " is not a valid name (lower case letters, digits, '-' and '.')"));
    }
  }
}
