package io.gpuoperator.operator.driver;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.common.ImageSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.upgrade.UpgradeSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The driver DaemonSets of one NVIDIADriver, as the original's NVIDIADriver controller makes them:
 * one per node pool of the nodes assigned to it (per OS, and per OS and kernel when precompiled),
 * named {@code nvidia-<driverType>-driver-<name>-<pool>}, selecting the pool's nodes by the owner
 * label and their OS. The driver container, manager and sidecars are the driver operand's, rendered
 * from the resource's spec in place of the ClusterPolicy's {@code driver}, {@code gds} and {@code
 * gdrcopy} sections (everything else, e.g. daemonsets and validator settings, from the active
 * ClusterPolicy); the resource's own scheduling fields come last. Pure.
 */
public final class NvidiaDriverModel {
  /** The only driver type this operator runs; vgpu and vgpu-host-manager are refused. */
  public static final NVIDIADriverSpec.DriverType SUPPORTED = NVIDIADriverSpec.DriverType.GPU;

  private NvidiaDriverModel() {}

  /** Why this operator cannot run the resource at all, or null. */
  public static String unsupported(NVIDIADriver d) {
    NVIDIADriverSpec spec = d.getSpec();
    if (spec != null && spec.driverType != null && spec.driverType != SUPPORTED) {
      return "driverType "
          + typeName(spec.driverType)
          + " is not supported by this operator (only gpu): its nodes are left as they are";
    }
    return null;
  }

  /**
   * The resource's upgrade settings: its upgradePolicy, auto-upgrade on unless set off, and off
   * with sandbox workloads (as for the ClusterPolicy's driver).
   */
  public static UpgradeSettings upgradeSettings(NVIDIADriver d, ClusterPolicy policy) {
    ClusterPolicySpec spec = policy.getSpec();
    boolean sandbox =
        spec != null
            && spec.sandboxWorkloads != null
            && Boolean.TRUE.equals(spec.sandboxWorkloads.enabled);
    var upgrade = d.getSpec() == null ? null : d.getSpec().upgradePolicy;
    if (sandbox) {
      upgrade = new io.gpuoperator.api.common.UpgradePolicySpec();
      upgrade.autoUpgrade = false;
    }
    return UpgradeSettings.ofNvidiaDriver(upgrade);
  }

  /**
   * The ClusterPolicy the resources are rendered from when no ClusterPolicy exists, as the original
   * v26.7 runs them on their own: every setting at its default (host root {@code /}, no extra
   * tolerations or labels, the operator's default images), the driver left to the resources. A
   * ClusterPolicy that says only {@code driver.useNvidiaDriverCRD: true} renders the same
   * DaemonSets, so creating or deleting one restarts no driver.
   */
  public static ClusterPolicy standalone() {
    ClusterPolicy p = new ClusterPolicy();
    p.getMetadata().setName(STANDALONE);
    p.setSpec(new ClusterPolicySpec());
    p.getSpec().driver = new DriverSpec();
    p.getSpec().driver.useNvidiaDriverCRD = true;
    return p;
  }

  /** The name of the {@link #standalone()} policy (never written to the server). */
  public static final String STANDALONE = "standalone-nvidia-drivers";

  /**
   * What the resources' DaemonSets run with besides themselves: the driver operand's service
   * account and startup-probe ConfigMap (its RBAC ships with the chart), rendered from the policy
   * as the ClusterPolicy keeps them with {@code useNvidiaDriverCRD} (stamped as the driver
   * operand's, so a ClusterPolicy that appears later takes them over without a change). Pure.
   */
  public static List<HasMetadata> supportObjects(
      ClusterPolicy policy, ClusterFacts facts, OperatorConfig config) {
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata o : Operands.byName(OperandNames.DRIVER).render(policy, facts, config)) {
      if (!(o instanceof DaemonSet)) {
        out.add(ManagedObjects.stamp(o, OperandNames.DRIVER, config.namespace()));
      }
    }
    return out;
  }

  /**
   * The ClusterPolicy the driver operand renders this resource from: the active one, with its
   * driver, gds and gdrcopy sections taken from the resource.
   */
  public static ClusterPolicy policyFor(NVIDIADriver d, ClusterPolicy active) {
    ClusterPolicy p = Serialization.clone(active);
    if (p.getSpec() == null) {
      p.setSpec(new ClusterPolicySpec());
    }
    NVIDIADriverSpec s = d.getSpec() == null ? new NVIDIADriverSpec() : d.getSpec();
    DriverSpec out = new DriverSpec();
    out.enabled = true;
    ImageSpec.copy(s, out);
    out.resources = s.resources;
    out.args = s.args;
    out.env = s.env;
    out.usePrecompiled = s.usePrecompiled;
    out.kernelModuleType = s.kernelModuleType;
    out.startupProbe = s.startupProbe;
    out.livenessProbe = s.livenessProbe;
    out.readinessProbe = s.readinessProbe;
    out.rdma = s.rdma;
    out.manager = s.manager;
    out.secretEnv = s.secretEnv;
    out.upgradePolicy = s.upgradePolicy;
    if (s.repoConfig != null && s.repoConfig.name != null) {
      out.repoConfig = new DriverSpec.RepoConfig();
      out.repoConfig.configMapName = s.repoConfig.name;
    }
    out.certConfig = certConfig(s.certConfig);
    out.kernelModuleConfig = certConfig(s.kernelModuleConfig);
    if (s.licensingConfig != null) {
      out.licensingConfig = new DriverSpec.LicensingConfig();
      out.licensingConfig.secretName = s.licensingConfig.secretName;
      out.licensingConfig.configMapName = s.licensingConfig.name;
      out.licensingConfig.nlsEnabled = s.licensingConfig.nlsEnabled;
    }
    if (s.virtualTopologyConfig != null && s.virtualTopologyConfig.name != null) {
      out.virtualTopology = new DriverSpec.VirtualTopology();
      out.virtualTopology.config = s.virtualTopologyConfig.name;
    }
    p.getSpec().driver = out;
    p.getSpec().gds = s.gds;
    p.getSpec().gdrcopy = s.gdrcopy;
    return p;
  }

  private static DriverSpec.CertConfig certConfig(io.gpuoperator.api.common.NamedRef ref) {
    if (ref == null || ref.name == null) {
      return null;
    }
    DriverSpec.CertConfig c = new DriverSpec.CertConfig();
    c.name = ref.name;
    return c;
  }

  /**
   * The resource's DaemonSets for its nodes' facts: one per OS (per OS and kernel when
   * precompiled); nodes of unknown OS get none.
   *
   * @param facts the facts of the nodes assigned to the resource
   */
  public static List<DaemonSet> daemonSets(
      NVIDIADriver d, ClusterPolicy active, ClusterFacts facts, OperatorConfig config) {
    ClusterPolicy policy = policyFor(d, active);
    boolean precompiled = Boolean.TRUE.equals(policy.getSpec().driver.usePrecompiled);
    String cr = d.getMetadata().getName();
    String prefix = "nvidia-" + typeName(SUPPORTED) + "-driver-" + cr;
    List<DaemonSet> out = new ArrayList<>();
    for (String tag : facts.osTags()) {
      ClusterFacts pool = facts.forOs(tag);
      Map<String, String> osSelector = pool.systems().get(0).osSelector();
      for (HasMetadata o : Operands.byName(OperandNames.DRIVER).render(policy, pool, config)) {
        if (!(o instanceof DaemonSet ds)) {
          continue;
        }
        String base = ds.getMetadata().getName();
        String name =
            precompiled
                ? prefix + base.substring(base.indexOf(DAEMONSET) + DAEMONSET.length())
                : prefix + "-" + tag;
        rename(ds, dnsLabel(name));
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        Map<String, String> selector = new LinkedHashMap<>(pod.getNodeSelector());
        selector.putAll(osSelector);
        selector.put(DriverOwners.OWNER, cr);
        pod.setNodeSelector(selector);
        schedule(ds, d.getSpec() == null ? new NVIDIADriverSpec() : d.getSpec());
        // Hashed, not stamped: the ClusterPolicy's driver operand label would make these the
        // policy's to delete.
        ds.getMetadata()
            .getAnnotations()
            .put(ManagedObjects.HASH_ANNOTATION, ManagedObjects.hash(ds));
        out.add(ds);
      }
    }
    return out;
  }

  /** The name the driver operand's DaemonSets start with. */
  private static final String DAEMONSET = "nvidia-driver-daemonset";

  /** The resource's own scheduling fields, over the policy's daemonsets settings. */
  private static void schedule(DaemonSet ds, NVIDIADriverSpec s) {
    PodSpec pod = ds.getSpec().getTemplate().getSpec();
    var meta = ds.getSpec().getTemplate().getMetadata();
    if (s.labels != null) {
      Map<String, String> labels = new LinkedHashMap<>(s.labels);
      labels.putAll(meta.getLabels()); // app and component stay
      meta.setLabels(labels);
    }
    if (s.annotations != null) {
      Map<String, String> annotations =
          meta.getAnnotations() == null
              ? new LinkedHashMap<>()
              : new LinkedHashMap<>(meta.getAnnotations());
      annotations.putAll(s.annotations);
      meta.setAnnotations(annotations);
    }
    if (s.tolerations != null) {
      List<io.fabric8.kubernetes.api.model.Toleration> t =
          pod.getTolerations() == null ? new ArrayList<>() : new ArrayList<>(pod.getTolerations());
      s.tolerations.stream().filter(x -> !t.contains(x)).forEach(t::add);
      pod.setTolerations(t);
    }
    if (s.nodeAffinity != null) {
      Affinity a = pod.getAffinity() == null ? new Affinity() : pod.getAffinity();
      a.setNodeAffinity(s.nodeAffinity);
      pod.setAffinity(a);
    }
    if (s.priorityClassName != null && !s.priorityClassName.isBlank()) {
      pod.setPriorityClassName(s.priorityClassName.trim());
    }
    if (s.podSecurityContext != null) {
      pod.setSecurityContext(s.podSecurityContext);
    }
    if (Boolean.TRUE.equals(s.hostNetwork)) {
      pod.setHostNetwork(true);
      pod.setDnsPolicy("ClusterFirstWithHostNet");
    }
  }

  private static void rename(DaemonSet ds, String name) {
    ds.getMetadata().setName(name);
    ds.getSpec().getSelector().getMatchLabels().put(Labels.APP, name);
    ds.getSpec().getTemplate().getMetadata().getLabels().put(Labels.APP, name);
  }

  /**
   * A DaemonSet name that is also a valid {@code app} label value: lower case, [a-z0-9.-], at most
   * 63 characters (longer names keep a hash of the whole for uniqueness).
   */
  static String dnsLabel(String name) {
    String s =
        name.toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9.-]", "-")
            .replaceAll("-+", "-")
            .replaceAll("^[-.]+|[-.]+$", "");
    if (s.length() <= 63) {
      return s;
    }
    String hash = Integer.toHexString(s.hashCode());
    return s.substring(0, 62 - hash.length()).replaceAll("[-.]+$", "") + "-" + hash;
  }

  private static String typeName(NVIDIADriverSpec.DriverType t) {
    return switch (t) {
      case GPU -> "gpu";
      case VGPU -> "vgpu";
      case VGPU_HOST_MANAGER -> "vgpu-host-manager";
    };
  }
}
