package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.gpuoperator.api.v1.CdiSpec;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1.MigSpec;
import io.gpuoperator.api.v1.MigStrategy;
import io.gpuoperator.api.v1.OperatorSpec;
import io.gpuoperator.node.deviceplugin.DevicePluginSettings;
import io.gpuoperator.node.discovery.DiscoverySettings;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeSystem;
import io.gpuoperator.operator.labels.Labels;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelsTest {
  private static List<HasMetadata> render(Operand m, ClusterPolicy p, ClusterFacts f) {
    return m.render(p, f, Policies.config());
  }

  private static DaemonSet ds(List<HasMetadata> objects) {
    return objects.stream()
        .filter(DaemonSet.class::isInstance)
        .map(DaemonSet.class::cast)
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, String> env(DaemonSet ds, String container) {
    Container c = DaemonSets.container(ds.getSpec().getTemplate().getSpec(), container);
    Map<String, String> out = new java.util.LinkedHashMap<>();
    if (c.getEnv() != null) {
      c.getEnv().forEach(e -> out.put(e.getName(), e.getValue()));
    }
    return out;
  }

  @Test
  void driverTagGetsTheOsSuffixOnlyWhenKnownAndNeverOnDigests() {
    var p = Policies.sample();
    var image =
        (java.util.function.Function<ClusterFacts, String>)
            f ->
                DaemonSets.container(
                        ds(render(Operands.byName(OperandNames.DRIVER), p, f))
                            .getSpec()
                            .getTemplate()
                            .getSpec(),
                        DriverTransform.CONTAINER)
                    .getImage();
    assertThat(image.apply(ClusterFacts.offline(1, "ubuntu22.04")))
        .isEqualTo("nvcr.io/nvidia/driver:570.124.06-ubuntu22.04");
    assertThat(image.apply(ClusterFacts.offline(1, null)))
        .isEqualTo("nvcr.io/nvidia/driver:570.124.06");
    p.getSpec().driver.version = "sha256:ab";
    assertThat(image.apply(ClusterFacts.offline(1, "rhel9")))
        .isEqualTo("nvcr.io/nvidia/driver@sha256:ab");
    // The operator's default image (env fallback) gets the suffix too.
    assertThat(
            DaemonSets.container(
                    ds(render(
                            Operands.byName(OperandNames.DRIVER),
                            Policies.minimal(),
                            ClusterFacts.offline(1, "rhel9")))
                        .getSpec()
                        .getTemplate()
                        .getSpec(),
                    DriverTransform.CONTAINER)
                .getImage())
        .endsWith("-rhel9")
        .startsWith("nvcr.io/nvidia/driver:");
  }

  @Test
  void driverStaysOnDeleteAndLeavesItsDaemonSetsToTheNvidiaDriverCrd() {
    var p = Policies.sample();
    assertThat(
            ds(render(Operands.byName(OperandNames.DRIVER), p, Policies.facts()))
                .getSpec()
                .getUpdateStrategy()
                .getType())
        .isEqualTo("OnDelete");
    p.getSpec().driver.useNvidiaDriverCRD = true;
    // NVIDIADriver resources run the DaemonSets; the policy keeps the service account and RBAC.
    assertThat(Operands.byName(OperandNames.DRIVER).enabled(p)).isTrue();
    assertThat(render(Operands.byName(OperandNames.DRIVER), p, Policies.facts()))
        .noneMatch(DaemonSet.class::isInstance)
        .anyMatch(o -> o.getKind().equals("ServiceAccount"));
  }

  /** GPU nodes on Ubuntu 22.04 (two kernels), RHEL 9.2 and 9.4, and one without NFD OS labels. */
  private static ClusterFacts mixedOs() {
    return ClusterFacts.offline(5, "ubuntu22.04")
        .withSystems(
            List.of(
                new NodeSystem("ubuntu", "22.04", "5.15.0-105-generic"),
                new NodeSystem("ubuntu", "22.04", "5.15.0-106-generic"),
                new NodeSystem("rhel", "9.2", "5.14.0-284.el9.x86_64"),
                new NodeSystem("RHEL", "9.4", "5.14.0-427.el9.x86_64"),
                new NodeSystem(null, null, "6.8.0-1-generic")));
  }

  private static List<DaemonSet> daemonSets(List<HasMetadata> objects) {
    return objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).toList();
  }

  @Test
  void nodesOfSeveralOsesGetOneDriverDaemonSetPerOs() {
    var p = Policies.sample();
    p.getSpec().driver.repoConfig = new DriverSpec.RepoConfig();
    p.getSpec().driver.repoConfig.configMapName = "repos";
    var facts = mixedOs().withConfigMapKeys(Map.of("repos", List.of("local.list")));
    List<HasMetadata> objects = render(Operands.byName(OperandNames.DRIVER), p, facts);
    List<DaemonSet> ds = daemonSets(objects);
    assertThat(ds)
        .extracting(d -> d.getMetadata().getName())
        .containsExactly("nvidia-driver-daemonset-rhel9", "nvidia-driver-daemonset-ubuntu22.04");
    DaemonSet rhel = ds.get(0);
    var pod = rhel.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeSelector())
        .containsEntry(Labels.NFD_OS_ID, "rhel")
        .containsEntry(NodeSystem.OS_VERSION_MAJOR, "9")
        .doesNotContainKey(Labels.NFD_OS_VERSION_ID);
    Container rhelDriver = DaemonSets.container(pod, DriverTransform.CONTAINER);
    assertThat(rhelDriver.getImage()).isEqualTo("nvcr.io/nvidia/driver:570.124.06-rhel9");
    assertThat(rhelDriver.getVolumeMounts())
        .anyMatch(m -> m.getMountPath().startsWith("/etc/yum.repos.d"));
    assertThat(rhel.getSpec().getSelector().getMatchLabels())
        .containsEntry(Labels.APP, "nvidia-driver-daemonset-rhel9");
    assertThat(rhel.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry(Labels.APP, "nvidia-driver-daemonset-rhel9");
    var ubuntu = ds.get(1).getSpec().getTemplate().getSpec();
    assertThat(ubuntu.getNodeSelector())
        .containsEntry(Labels.NFD_OS_ID, "ubuntu")
        .containsEntry(Labels.NFD_OS_VERSION_ID, "22.04");
    Container ubuntuDriver = DaemonSets.container(ubuntu, DriverTransform.CONTAINER);
    assertThat(ubuntuDriver.getImage()).isEqualTo("nvcr.io/nvidia/driver:570.124.06-ubuntu22.04");
    assertThat(ubuntuDriver.getVolumeMounts())
        .anyMatch(m -> m.getMountPath().startsWith("/etc/apt/sources.list.d"));
    // Each pool has its own config digest; the RBAC objects come once.
    assertThat(env(ds.get(0), DriverTransform.CONTAINER).get("DRIVER_CONFIG_DIGEST"))
        .isNotEqualTo(env(ds.get(1), DriverTransform.CONTAINER).get("DRIVER_CONFIG_DIGEST"));
    assertThat(objects.stream().filter(o -> !(o instanceof DaemonSet)).map(o -> o.getKind()))
        .doesNotHaveDuplicates();
  }

  /** The folder of each package family, for repositories and certificates, as the original's. */
  @Test
  void repositoryAndCertificateFilesGoWhereEachFamilysDriverImageLooks() {
    var p = Policies.sample();
    p.getSpec().driver.repoConfig = new DriverSpec.RepoConfig();
    p.getSpec().driver.repoConfig.configMapName = "repos";
    p.getSpec().driver.certConfig = new DriverSpec.CertConfig();
    p.getSpec().driver.certConfig.name = "certs";
    Map<String, List<String>> dirs =
        Map.of(
            "rhel9", List.of("/etc/yum.repos.d/r", "/etc/pki/ca-trust/extracted/pem/c"),
            "ubuntu22.04",
                List.of("/etc/apt/sources.list.d/r", "/usr/local/share/ca-certificates/c"),
            "sles15.5", List.of("/etc/zypp/repos.d/r", "/etc/pki/trust/anchors/c"));
    dirs.forEach(
        (os, paths) -> {
          var facts =
              ClusterFacts.offline(1, os)
                  .withConfigMapKeys(Map.of("repos", List.of("r"), "certs", List.of("c")));
          Container driver =
              DaemonSets.container(
                  ds(render(Operands.byName(OperandNames.DRIVER), p, facts))
                      .getSpec()
                      .getTemplate()
                      .getSpec(),
                  DriverTransform.CONTAINER);
          assertThat(driver.getVolumeMounts())
              .as(os)
              .extracting(m -> m.getMountPath())
              .containsAll(paths);
        });
  }

  @Test
  void oneOsKeepsTheOriginalsSingleDaemonSet() {
    var facts =
        ClusterFacts.offline(2, "ubuntu22.04")
            .withSystems(
                List.of(
                    new NodeSystem("ubuntu", "22.04", "5.15.0-105-generic"),
                    new NodeSystem(null, null, null)));
    DaemonSet ds = ds(render(Operands.byName(OperandNames.DRIVER), Policies.sample(), facts));
    assertThat(ds.getMetadata().getName()).isEqualTo("nvidia-driver-daemonset");
    assertThat(ds.getSpec().getTemplate().getSpec().getNodeSelector())
        .doesNotContainKey(Labels.NFD_OS_ID);
  }

  @Test
  void precompiledPoolsAreOsAndKernel() {
    var p = Policies.minimal();
    p.getSpec().driver = new DriverSpec();
    p.getSpec().driver.usePrecompiled = true;
    p.getSpec().driver.version = "550";
    p.getSpec().driver.repository = "nvcr.io/nvidia";
    p.getSpec().driver.image = "driver";
    List<DaemonSet> ds = daemonSets(render(Operands.byName(OperandNames.DRIVER), p, mixedOs()));
    assertThat(ds)
        .extracting(d -> d.getMetadata().getName())
        .containsExactly(
            "nvidia-driver-daemonset-5.14.0-284.el9-rhel9",
            "nvidia-driver-daemonset-5.14.0-427.el9-rhel9",
            "nvidia-driver-daemonset-5.15.0-105-generic-ubuntu22.04",
            "nvidia-driver-daemonset-5.15.0-106-generic-ubuntu22.04");
    var first = ds.get(0).getSpec().getTemplate().getSpec();
    assertThat(first.getNodeSelector())
        .containsEntry(Labels.NFD_KERNEL_FULL, "5.14.0-284.el9.x86_64")
        .containsEntry(Labels.NFD_OS_ID, "rhel");
    assertThat(DaemonSets.container(first, DriverTransform.CONTAINER).getImage())
        .isEqualTo("nvcr.io/nvidia/driver:550-5.14.0-284.el9.x86_64-rhel9");
    assertThat(
            DaemonSets.container(
                    ds.get(3).getSpec().getTemplate().getSpec(), DriverTransform.CONTAINER)
                .getImage())
        .isEqualTo("nvcr.io/nvidia/driver:550-5.15.0-106-generic-ubuntu22.04");
  }

  @Test
  void precompiledWithoutKnownKernelsRendersNoDaemonSet() {
    var p = Policies.minimal();
    p.getSpec().driver = new DriverSpec();
    p.getSpec().driver.usePrecompiled = true;
    assertThat(render(Operands.byName(OperandNames.DRIVER), p, Policies.facts()))
        .noneMatch(DaemonSet.class::isInstance)
        .isNotEmpty();
    // The original's kernel sanitising: no architecture, '_' as '.', no trailing dot, lower case.
    assertThat(DriverTransform.sanitize("5.14.0-427.13.1.el9_4.x86_64"))
        .isEqualTo("5.14.0-427.13.1.el9.4");
    assertThat(DriverTransform.sanitize("6.8.0-1012-AWS_")).isEqualTo("6.8.0-1012-aws");
  }

  @Test
  void cdiSwitchesToolkitAndDevicePluginEnv() {
    var on = Policies.minimal();
    var dpOn =
        env(
            ds(render(Operands.byName(OperandNames.DEVICE_PLUGIN), on, Policies.facts())),
            DevicePluginTransform.CONTAINER);
    assertThat(dpOn).containsEntry("DEVICE_LIST_STRATEGY", "cdi-annotations,cdi-cri");
    assertThat(toolkitEnv(on, true))
        .containsEntry("CDI_ENABLED", "true")
        .containsEntry("NVIDIA_RUNTIME_SET_AS_DEFAULT", "false")
        .containsEntry("NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");
    // Our agent (where the policy names our image): the same switches, and the runtime it
    // configures.
    assertThat(toolkitEnv(on, false))
        .containsEntry("CDI_ENABLED", "true")
        .containsEntry("NVIDIA_RUNTIME_SET_AS_DEFAULT", "false")
        .containsEntry("RUNTIME", "containerd");

    var off = Policies.minimal();
    off.getSpec().cdi = new CdiSpec();
    off.getSpec().cdi.enabled = false;
    var dpOff =
        env(
            ds(render(Operands.byName(OperandNames.DEVICE_PLUGIN), off, Policies.facts())),
            DevicePluginTransform.CONTAINER);
    assertThat(dpOff)
        .containsEntry("DEVICE_LIST_STRATEGY", "envvar")
        .doesNotContainKey("CDI_ENABLED");
    // The original's toolkit contract: without CDI none of the CDI settings is passed.
    assertThat(toolkitEnv(off, true))
        .doesNotContainKeys("CDI_ENABLED", "NVIDIA_CONTAINER_RUNTIME_MODE");
    assertThat(toolkitEnv(off, false)).containsEntry("CDI_ENABLED", "false");
  }

  @Test
  void ourToolkitAgentMountsOnlyWhatTheDetectedRuntimeNeeds() {
    for (String runtime : List.of("containerd", "crio")) {
      ClusterFacts facts = new ClusterFacts("v1.36.3", runtime, false, 1, true, "ubuntu22.04");
      DaemonSet ds =
          ds(
              Operands.byName(OperandNames.CONTAINER_TOOLKIT)
                  .render(Policies.minimal(), facts, Policies.configWithToolkitAgent()));
      Container c =
          ds.getSpec().getTemplate().getSpec().getContainers().stream()
              .filter(x -> x.getName().equals(ContainerToolkitTransform.CONTAINER))
              .findFirst()
              .orElseThrow();
      assertThat(c.getArgs()).containsExactly("toolkit");
      assertThat(env(ds, ContainerToolkitTransform.CONTAINER)).containsEntry("RUNTIME", runtime);
      List<String> runtimeMounts =
          c.getVolumeMounts().stream()
              .map(m -> m.getMountPath())
              .filter(m -> m.startsWith("/runtime/"))
              .toList();
      // CRI-O is restarted through systemd in the host's root: no socket; no OCI hooks folder.
      assertThat(runtimeMounts)
          .containsExactlyInAnyOrderElementsOf(
              runtime.equals("crio")
                  ? List.of("/runtime/config-dir/", "/runtime/config-dir.d/")
                  : List.of(
                      "/runtime/config-dir/", "/runtime/config-dir.d/", "/runtime/sock-dir/"));
      assertThat(ds.getSpec().getTemplate().getSpec().getVolumes())
          .noneMatch(v -> v.getName().equals("crio-hooks"))
          .noneMatch(v -> v.getName().equals("nvidia-container-toolkit-entrypoint"));
    }
  }

  /** The toolkit container's env, under NVIDIA's image (the default) or our agent. */
  private static java.util.Map<String, String> toolkitEnv(
      io.gpuoperator.api.v1.ClusterPolicy p, boolean nvidiaImage) {
    p.getSpec().toolkit = null;
    return env(
        ds(
            Operands.byName(OperandNames.CONTAINER_TOOLKIT)
                .render(
                    p,
                    Policies.facts(),
                    nvidiaImage ? Policies.config() : Policies.configWithToolkitAgent())),
        ContainerToolkitTransform.CONTAINER);
  }

  @Test
  void migStrategyReachesPluginAndFeatureDiscoveryAsTheirSettings() {
    var p = Policies.minimal();
    p.getSpec().mig = new MigSpec();
    p.getSpec().mig.strategy = MigStrategy.MIXED;
    assertThat(
            env(
                ds(render(Operands.byName(OperandNames.DEVICE_PLUGIN), p, Policies.facts())),
                DevicePluginTransform.CONTAINER))
        .containsEntry(DevicePluginSettings.MIG_STRATEGY.envName(), "mixed");
    assertThat(
            env(
                ds(
                    render(
                        Operands.byName(OperandNames.GPU_FEATURE_DISCOVERY), p, Policies.facts())),
                GpuFeatureDiscoveryTransform.CONTAINER))
        .containsEntry(DiscoverySettings.MIG_STRATEGY.envName(), "mixed");
    // Our validator's plugin step takes whichever GPU resource the node has: no strategy.
    assertThat(
            env(
                ds(render(Operands.byName(OperandNames.OPERATOR_VALIDATOR), p, Policies.facts())),
                "plugin-validation"))
        .doesNotContainKey("MIG_STRATEGY");
  }

  @Test
  void ourValidatorChecksTheDraDriverLastWhenItIsOn() {
    var p = Policies.minimal();
    Operand validator = Operands.byName(OperandNames.OPERATOR_VALIDATOR);
    assertThat(initContainers(ds(render(validator, p, Policies.facts()))))
        .doesNotContain(OperatorValidatorAgentTransform.DRA);
    p.getSpec().draDriver = new io.gpuoperator.api.v1.DraDriverSpec();
    p.getSpec().draDriver.enabled = true;
    DaemonSet ds =
        ds(
            render(
                validator,
                p,
                Policies.facts().withResourceApi(io.gpuoperator.api.dra.ResourceApiVersion.V1)));
    assertThat(initContainers(ds)).last().isEqualTo(OperatorValidatorAgentTransform.DRA);
    Container dra =
        DaemonSets.container(
            ds.getSpec().getTemplate().getSpec(), OperatorValidatorAgentTransform.DRA);
    assertThat(dra.getArgs()).containsExactly("validator", "--component", "dra");
    assertThat(env(ds, OperatorValidatorAgentTransform.DRA))
        .containsEntry("COMPONENT", "dra")
        .containsEntry("WITH_WAIT", "true")
        .containsKeys("NODE_NAME", "OPERATOR_NAMESPACE")
        .doesNotContainKey("CDI_ENABLED");
  }

  private static List<String> initContainers(DaemonSet ds) {
    return ds.getSpec().getTemplate().getSpec().getInitContainers().stream()
        .map(Container::getName)
        .toList();
  }

  @Test
  void runtimeClassesFollowTheOperatorSettingAndNriDisablesThem() {
    var p = Policies.minimal();
    p.getSpec().operator = new OperatorSpec();
    p.getSpec().operator.runtimeClass = "nvidia-gpu";
    var names =
        render(Operands.byName(OperandNames.PRE_REQUISITES), p, Policies.facts()).stream()
            .map(o -> ((RuntimeClass) o).getHandler())
            .toList();
    assertThat(names).containsExactly("nvidia-gpu", "nvidia-cdi", "nvidia-legacy");
    assertThat(
            ds(render(Operands.byName(OperandNames.DEVICE_PLUGIN), p, Policies.facts()))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getRuntimeClassName())
        .isEqualTo("nvidia-gpu");
    assertThat(
            ds(render(Operands.byName(OperandNames.CONTAINER_TOOLKIT), p, Policies.facts()))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getRuntimeClassName())
        .isNull();
    p.getSpec().operator.runtimeClass = "nvidia-cdi";
    assertThat(
            render(Operands.byName(OperandNames.PRE_REQUISITES), p, Policies.facts()).stream()
                .map(o -> o.getMetadata().getName()))
        .containsExactly("nvidia-cdi", "nvidia-legacy");
    p.getSpec().cdi = new CdiSpec();
    p.getSpec().cdi.nriPluginEnabled = true;
    assertThat(Operands.byName(OperandNames.PRE_REQUISITES).enabled(p)).isFalse();
  }

  @Test
  void manifestFilesAreNumberedAndEachDaemonSetIsSelectedByItsOwnDeployLabel() {
    for (Operand m : Operands.ordered()) {
      assertThat(Manifests.files(m.name()))
          .as(m.name())
          .isNotEmpty()
          .allMatch(f -> f.matches("\\d{4}_[a-z0-9_-]+\\.yaml"));
      var daemonSets =
          Manifests.load(m.name()).stream().filter(DaemonSet.class::isInstance).toList();
      assertThat(daemonSets.size()).as(m.name()).isLessThanOrEqualTo(1);
      // The MPS control daemon runs where the device plugin does (and MPS is configured).
      String deploy = m.name().equals(OperandNames.MPS_CONTROL_DAEMON) ? "device-plugin" : m.name();
      daemonSets.forEach(
          d ->
              assertThat(((DaemonSet) d).getSpec().getTemplate().getSpec().getNodeSelector())
                  .containsEntry("nvidia.com/gpu.deploy." + deploy, "true"));
      if (m.agent() == null || Manifests.filesIfAny(m.name() + "/" + Agent.OVERLAY).isEmpty()) {
        continue; // NVIDIA's rendering only, or our agent's only (its manifests are the base)
      }
      assertThat(Manifests.files(m.name() + "/" + Agent.OVERLAY))
          .allMatch(f -> f.matches("\\d{4}_[a-z0-9_-]+\\.yaml"));
      // A DaemonSet's selector cannot change: switching images must keep it.
      var ours =
          Manifests.load(m.name(), Agent.OVERLAY).stream()
              .filter(DaemonSet.class::isInstance)
              .map(DaemonSet.class::cast)
              .toList();
      assertThat(ours).as(m.name()).hasSameSizeAs(daemonSets);
      for (int i = 0; i < ours.size(); i++) {
        var nvidia = (DaemonSet) daemonSets.get(i);
        assertThat(ours.get(i).getMetadata().getName()).isEqualTo(nvidia.getMetadata().getName());
        assertThat(ours.get(i).getSpec().getSelector())
            .as(m.name())
            .isEqualTo(nvidia.getSpec().getSelector());
      }
    }
  }

  @Test
  void serviceMonitorsNeedTheirCrd() {
    var withCrd = new ClusterFacts("v1.36.3", "containerd", true, 1, true, "ubuntu22.04");
    assertThat(render(Operands.byName(OperandNames.OPERATOR_METRICS), Policies.minimal(), withCrd))
        .hasSize(2);
    assertThat(
            render(
                Operands.byName(OperandNames.OPERATOR_METRICS),
                Policies.minimal(),
                Policies.facts()))
        .hasSize(1);
  }

  @Test
  void customMigConfigReplacesTheDefaultConfigMap() {
    var p =
        Policies.parse(
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n"
                + "  migManager:\n    config:\n      name: mine\n");
    var objects = render(Operands.byName(OperandNames.MIG_MANAGER), p, Policies.facts());
    assertThat(objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()))
        .contains("ConfigMap/default-gpu-clients")
        .doesNotContain("ConfigMap/default-mig-parted-config");
    assertThat(ds(objects).getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getConfigMap() != null && v.getConfigMap().getName().equals("mine"));
  }

  /**
   * Our agent: NFD present, labels go through NodeFeature objects, as NVIDIA's image; without NFD
   * it writes its Node's labels. No RBAC is rendered either way: the chart ships the union.
   */
  @Test
  void featureDiscoveryWritesNodeLabelsOnlyWithoutNfd() {
    var withNfd = new ClusterFacts("v1.36.3", "containerd", false, 2, true, "ubuntu22.04");
    var withoutNfd = new ClusterFacts("v1.36.3", "containerd", false, 2, false, "ubuntu22.04");
    for (var facts : List.of(withNfd, withoutNfd)) {
      List<HasMetadata> objects =
          render(Operands.byName(OperandNames.GPU_FEATURE_DISCOVERY), Policies.minimal(), facts);
      assertThat(objects).noneMatch(OperandRbac::isRbac);
      String output =
          env(ds(objects), GpuFeatureDiscoveryTransform.CONTAINER)
              .get(GpuFeatureDiscoveryAgentTransform.OUTPUT_ENV);
      assertThat(output).isEqualTo(facts.nfdLabelsPresent() ? "node-feature" : "node-labels");
    }
  }

  /**
   * Without NFD nothing else finds GPU nodes: our feature discovery comes with the PCI discovery
   * DaemonSet (every node not yet labelled, every taint tolerated, our image, feature discovery's
   * account); with NFD it does not.
   */
  @Test
  void pciDiscoveryIsRenderedOnlyWithoutNfd() {
    var withNfd = new ClusterFacts("v1.36.3", "containerd", false, 0, true, "ubuntu22.04");
    var withoutNfd = new ClusterFacts("v1.36.3", "containerd", false, 0, false, "ubuntu22.04");
    Operand gfd = Operands.byName(OperandNames.GPU_FEATURE_DISCOVERY);
    assertThat(render(gfd, Policies.minimal(), withNfd))
        .noneMatch(o -> o.getMetadata().getName().equals("nvidia-pci-discovery"));
    List<HasMetadata> objects = render(gfd, Policies.minimal(), withoutNfd);
    var pci =
        objects.stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .filter(d -> d.getMetadata().getName().equals("nvidia-pci-discovery"))
            .findFirst()
            .orElseThrow();
    var pod = pci.getSpec().getTemplate().getSpec();
    var main = pod.getContainers().get(0);
    assertThat(main.getArgs()).containsExactly("pci-discovery");
    Container gfdMain =
        DaemonSets.container(
            ds(objects).getSpec().getTemplate().getSpec(), GpuFeatureDiscoveryTransform.CONTAINER);
    assertThat(main.getImage()).isNotBlank().isEqualTo(gfdMain.getImage());
    assertThat(pci.getMetadata().getNamespace())
        .isEqualTo(ds(objects).getMetadata().getNamespace());
    assertThat(pod.getServiceAccountName()).isEqualTo("nvidia-gpu-feature-discovery");
    assertThat(pod.getTolerations())
        .singleElement()
        .satisfies(t -> assertThat(t.getOperator()).isEqualTo("Exists"));
    assertThat(
            pod.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .get(0)
                .getMatchExpressions())
        .anyMatch(
            e -> e.getKey().equals(Labels.PCI_PRESENT) && e.getOperator().equals("DoesNotExist"));
  }

  /**
   * The shipped feature-discovery ClusterRole lets the agent patch its Node where NFD is absent.
   */
  @Test
  void shippedRbacHoldsEveryVariantsRules() {
    var roles = OperandRbac.all("gpu-operator");
    var gfd = clusterRole(roles, "nvidia-gpu-feature-discovery");
    assertThat(gfd.getRules().get(0).getVerbs()).contains("patch");
    var migRole = clusterRole(roles, "nvidia-mig-manager");
    // The original's rules and our agent's (events) both.
    assertThat(migRole.getRules()).anyMatch(r -> r.getResources().contains("events"));
    assertThat(migRole.getRules()).anyMatch(r -> r.getVerbs().equals(List.of("list")));
    assertThat(
            roles.stream()
                .filter(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class::isInstance)
                .toList())
        .isNotEmpty()
        .allMatch(
            b ->
                OperandRbac.subjects(b).stream()
                    .allMatch(s -> "gpu-operator".equals(s.getNamespace())));
  }

  private static io.fabric8.kubernetes.api.model.rbac.ClusterRole clusterRole(
      List<HasMetadata> objects, String name) {
    return objects.stream()
        .filter(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class::isInstance)
        .map(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class::cast)
        .filter(r -> r.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
