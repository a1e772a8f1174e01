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
import io.gpuoperator.api.v1.OperatorSpec;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.NodeSystem;
import io.gpuoperator.operator.labels.Labels;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelsTest {
  private static List<HasMetadata> render(OperandModel m, ClusterPolicy p, ClusterFacts f) {
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
    return ManifestOperandModel.envOf(c);
  }

  @Test
  void driverTagGetsTheOsSuffixOnlyWhenKnownAndNeverOnDigests() {
    var p = Policies.sample();
    var image =
        (java.util.function.Function<ClusterFacts, String>)
            f ->
                DaemonSets.container(
                        ds(render(new DriverModel(), p, f)).getSpec().getTemplate().getSpec(),
                        DriverModel.CONTAINER)
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
                            new DriverModel(),
                            Policies.minimal(),
                            ClusterFacts.offline(1, "rhel9")))
                        .getSpec()
                        .getTemplate()
                        .getSpec(),
                    DriverModel.CONTAINER)
                .getImage())
        .endsWith("-rhel9")
        .startsWith("nvcr.io/nvidia/driver:");
  }

  @Test
  void driverStaysOnDeleteAndLeavesItsDaemonSetsToTheNvidiaDriverCrd() {
    var p = Policies.sample();
    assertThat(
            ds(render(new DriverModel(), p, Policies.facts()))
                .getSpec()
                .getUpdateStrategy()
                .getType())
        .isEqualTo("OnDelete");
    p.getSpec().driver.useNvidiaDriverCRD = true;
    // NVIDIADriver resources run the DaemonSets; the policy keeps the service account and RBAC.
    assertThat(new DriverModel().enabled(p, Policies.facts())).isTrue();
    assertThat(render(new DriverModel(), p, Policies.facts()))
        .noneMatch(DaemonSet.class::isInstance)
        .anyMatch(o -> o.getKind().equals("ServiceAccount"));
  }

  @Test
  void precompiledWithoutKnownKernelsRendersNoDaemonSet() {
    var p = Policies.minimal();
    p.getSpec().driver = new DriverSpec();
    p.getSpec().driver.usePrecompiled = true;
    assertThat(render(new DriverModel(), p, Policies.facts()))
        .noneMatch(DaemonSet.class::isInstance)
        .isNotEmpty();
    assertThat(DriverModel.labelSafe("x".repeat(80))).hasSizeLessThanOrEqualTo(63);
    assertThat(DriverModel.sanitize("5.14.0-427.el9_4.x86_64-rhel9"))
        .isEqualTo("5-14-0-427-el9-4-x86-64-rhel9");
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
    p.getSpec().driver.repoConfig = new io.gpuoperator.api.v1.DriverSpec.RepoConfig();
    p.getSpec().driver.repoConfig.configMapName = "repos";
    List<HasMetadata> objects = render(new DriverModel(), p, mixedOs());
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
    assertThat(DaemonSets.container(pod, DriverModel.CONTAINER).getImage())
        .isEqualTo("nvcr.io/nvidia/driver:570.124.06-rhel9");
    assertThat(DaemonSets.container(pod, DriverModel.CONTAINER).getVolumeMounts())
        .anyMatch(m -> m.getMountPath().equals("/etc/yum.repos.d"));
    assertThat(rhel.getSpec().getSelector().getMatchLabels())
        .containsEntry(Labels.APP, "nvidia-driver-daemonset-rhel9");
    assertThat(rhel.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry(Labels.APP, "nvidia-driver-daemonset-rhel9");
    var ubuntu = ds.get(1).getSpec().getTemplate().getSpec();
    assertThat(ubuntu.getNodeSelector())
        .containsEntry(Labels.NFD_OS_ID, "ubuntu")
        .containsEntry(Labels.NFD_OS_VERSION_ID, "22.04");
    assertThat(DaemonSets.container(ubuntu, DriverModel.CONTAINER).getImage())
        .isEqualTo("nvcr.io/nvidia/driver:570.124.06-ubuntu22.04");
    assertThat(DaemonSets.container(ubuntu, DriverModel.CONTAINER).getVolumeMounts())
        .anyMatch(m -> m.getMountPath().equals("/etc/apt/sources.list.d"));
    // The RBAC objects once, not per OS.
    assertThat(objects.stream().filter(o -> !(o instanceof DaemonSet)).map(o -> o.getKind()))
        .doesNotHaveDuplicates();
    // Each DaemonSet's hash covers its own selector.
    assertThat(ds.get(0).getMetadata().getAnnotations().get(Labels.LAST_APPLIED_HASH))
        .isEqualTo(ContentHash.of(ds.get(0)));
  }

  @Test
  void oneOsKeepsTheOriginalsSingleDaemonSet() {
    var facts =
        ClusterFacts.offline(2, "ubuntu22.04")
            .withSystems(
                List.of(
                    new NodeSystem("ubuntu", "22.04", "5.15.0-105-generic"),
                    new NodeSystem(null, null, null)));
    DaemonSet ds = ds(render(new DriverModel(), Policies.sample(), facts));
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
    List<DaemonSet> ds = daemonSets(render(new DriverModel(), p, mixedOs()));
    assertThat(ds)
        .extracting(d -> d.getMetadata().getName())
        .containsExactly(
            "nvidia-driver-daemonset-5-14-0-284-el9-x86-64-rhel9",
            "nvidia-driver-daemonset-5-14-0-427-el9-x86-64-rhel9",
            "nvidia-driver-daemonset-5-15-0-105-generic-ubuntu22-04",
            "nvidia-driver-daemonset-5-15-0-106-generic-ubuntu22-04");
    var first = ds.get(0).getSpec().getTemplate().getSpec();
    assertThat(first.getNodeSelector())
        .containsEntry(Labels.NFD_KERNEL_FULL, "5.14.0-284.el9.x86_64")
        .containsEntry(Labels.NFD_OS_ID, "rhel");
    assertThat(DaemonSets.container(first, DriverModel.CONTAINER).getImage())
        .isEqualTo("nvcr.io/nvidia/driver:550-5.14.0-284.el9.x86_64-rhel9");
    assertThat(
            DaemonSets.container(ds.get(3).getSpec().getTemplate().getSpec(), DriverModel.CONTAINER)
                .getImage())
        .isEqualTo("nvcr.io/nvidia/driver:550-5.15.0-106-generic-ubuntu22.04");
  }

  @Test
  void cdiSwitchesToolkitAndDevicePluginEnv() {
    var on = Policies.minimal();
    var dpOn =
        env(ds(render(new DevicePluginModel(), on, Policies.facts())), DevicePluginModel.CONTAINER);
    assertThat(dpOn).containsEntry("DEVICE_LIST_STRATEGY", "cdi-annotations,cdi-cri");
    var tkOn =
        env(
            ds(render(new ContainerToolkitModel(), on, Policies.facts())),
            ContainerToolkitModel.CONTAINER);
    assertThat(tkOn)
        .containsEntry("CDI_ENABLED", "true")
        .containsEntry("NVIDIA_RUNTIME_SET_AS_DEFAULT", "false")
        .containsEntry("NVIDIA_CONTAINER_RUNTIME_MODE", "cdi");

    var off = Policies.minimal();
    off.getSpec().cdi = new CdiSpec();
    off.getSpec().cdi.enabled = false;
    var dpOff =
        env(
            ds(render(new DevicePluginModel(), off, Policies.facts())),
            DevicePluginModel.CONTAINER);
    assertThat(dpOff)
        .containsEntry("DEVICE_LIST_STRATEGY", "envvar")
        .doesNotContainKey("CDI_ENABLED");
    var tkOff =
        env(
            ds(render(new ContainerToolkitModel(), off, Policies.facts())),
            ContainerToolkitModel.CONTAINER);
    assertThat(tkOff)
        .containsEntry("CDI_ENABLED", "false")
        .doesNotContainKey("NVIDIA_CONTAINER_RUNTIME_MODE");
  }

  @Test
  void migStrategyReachesPluginFeatureDiscoveryAndValidator() {
    var p = Policies.minimal();
    p.getSpec().mig = new MigSpec();
    p.getSpec().mig.strategy = MigSpec.Strategy.MIXED;
    assertThat(
            env(
                ds(render(new DevicePluginModel(), p, Policies.facts())),
                DevicePluginModel.CONTAINER))
        .containsEntry("MIG_STRATEGY", "mixed");
    assertThat(
            env(
                ds(render(new GpuFeatureDiscoveryModel(), p, Policies.facts())),
                GpuFeatureDiscoveryModel.CONTAINER))
        .containsEntry("MIG_STRATEGY", "mixed");
    assertThat(
            env(ds(render(new OperatorValidatorModel(), p, Policies.facts())), "plugin-validation"))
        .containsEntry("MIG_STRATEGY", "mixed");
  }

  @Test
  void runtimeClassesFollowTheOperatorSettingAndNriDisablesThem() {
    var p = Policies.minimal();
    p.getSpec().operator = new OperatorSpec();
    p.getSpec().operator.runtimeClass = "nvidia-gpu";
    var names =
        render(new PreRequisitesModel(), p, Policies.facts()).stream()
            .map(o -> ((RuntimeClass) o).getHandler())
            .toList();
    assertThat(names).containsExactly("nvidia-gpu", "nvidia-cdi", "nvidia-legacy");
    assertThat(
            ds(render(new DevicePluginModel(), p, Policies.facts()))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getRuntimeClassName())
        .isEqualTo("nvidia-gpu");
    assertThat(
            ds(render(new ContainerToolkitModel(), p, Policies.facts()))
                .getSpec()
                .getTemplate()
                .getSpec()
                .getRuntimeClassName())
        .isNull();
    p.getSpec().operator.runtimeClass = "nvidia-cdi";
    assertThat(
            render(new PreRequisitesModel(), p, Policies.facts()).stream()
                .map(o -> o.getMetadata().getName()))
        .containsExactly("nvidia-cdi", "nvidia-legacy");
    p.getSpec().cdi = new CdiSpec();
    p.getSpec().cdi.nriPluginEnabled = true;
    assertThat(new PreRequisitesModel().enabled(p, Policies.facts())).isFalse();
  }

  @Test
  void manifestFilesAreNumberedAndEachDaemonSetIsSelectedByItsOwnDeployLabel() {
    for (OperandModel m : Operands.ordered()) {
      assertThat(Manifests.files(m.name()))
          .as(m.name())
          .isNotEmpty()
          .allMatch(f -> f.matches("\\d{4}_[a-z0-9_-]+\\.yaml"));
      var daemonSets =
          Manifests.load(m.name()).stream().filter(DaemonSet.class::isInstance).toList();
      assertThat(daemonSets.size()).as(m.name()).isLessThanOrEqualTo(1);
      daemonSets.forEach(
          d ->
              assertThat(((DaemonSet) d).getSpec().getTemplate().getSpec().getNodeSelector())
                  .containsEntry("nvidia.com/gpu.deploy." + m.name(), "true"));
    }
  }

  @Test
  void serviceMonitorsNeedTheirCrd() {
    var withCrd = new ClusterFacts("v1.36.3", "containerd", true, 1, true, "ubuntu22.04");
    assertThat(render(new OperatorMetricsModel(), Policies.minimal(), withCrd)).hasSize(2);
    assertThat(render(new OperatorMetricsModel(), Policies.minimal(), Policies.facts())).hasSize(1);
  }

  @Test
  void customMigConfigReplacesTheDefaultConfigMap() {
    var p =
        Policies.parse(
            "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n"
                + "  migManager:\n    config:\n      name: mine\n");
    var objects = render(new MigManagerModel(), p, Policies.facts());
    assertThat(objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()))
        .contains("ConfigMap/default-gpu-clients")
        .doesNotContain("ConfigMap/default-mig-parted-config");
    assertThat(ds(objects).getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getConfigMap() != null && v.getConfigMap().getName().equals("mine"));
  }
}
