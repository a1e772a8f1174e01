package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.openshift.api.model.ImageStream;
import io.fabric8.openshift.api.model.ImageStreamBuilder;
import io.fabric8.openshift.api.model.TagReference;
import io.fabric8.openshift.api.model.TagReferenceBuilder;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.DriverToolkitFacts;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.openshift.OpenShiftTypes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * OpenShift's Driver Toolkit path of the driver against the original's contract (v26.7 {@code
 * transformOpenShiftDriverToolkitContainer} and its state-driver manifest, transcribed here): one
 * DaemonSet per RHCOS version named {@code nvidia-driver-daemonset-<version>}, its labels and node
 * selector, the toolkit sidecar (image from the {@code driver-toolkit} ImageStream's tag for the
 * version, or the driver image with {@code RHCOS_IMAGE_MISSING} where the tag is missing), the
 * driver container started by {@code ocp_dtk_entrypoint nv-ctr-run-with-dtk}, the shared folder;
 * and when it is not used.
 */
class DriverToolkitModelTest {
  static final String OSTREE = "feature.node.kubernetes.io/system-os_release.OSTREE_VERSION";
  static final String V1 = "418.94.202501221327-0";
  static final String V2 = "418.94.202502100215-0";
  static final String DTK_IMAGE = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123abcd";
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  /** The ImageStream as OpenShift serves it: one tag per RHCOS version, plus latest. */
  static GenericKubernetesResource imageStream() {
    ImageStream stream =
        new ImageStreamBuilder()
            .withNewMetadata()
            .withName("driver-toolkit")
            .withNamespace("openshift")
            .endMetadata()
            .withNewSpec()
            .addToTags(toolkitTag(V1), toolkitTag("latest"))
            .addNewTag()
            .withName("")
            .endTag()
            .endSpec()
            .build();
    return KUBE.convertValue(stream, GenericKubernetesResource.class);
  }

  /** A tag of the ImageStream that points at the toolkit image. */
  private static TagReference toolkitTag(String name) {
    return new TagReferenceBuilder()
        .withName(name)
        .withNewFrom()
        .withKind("DockerImage")
        .withName(DTK_IMAGE)
        .endFrom()
        .build();
  }

  /** Two RHCOS versions on the GPU nodes; the ImageStream has a tag for the first only. */
  static ClusterFacts facts() {
    List<Node> nodes =
        List.of(node("gpu-a", V1), node("gpu-b", V2), node("gpu-c", V1), cpuNode("cpu", V2));
    ClusterFacts f = NodeFacts.of(nodes, "v1.36.3", false).withOpenShift(true);
    return f.withDriverToolkit(f.driverToolkit().withImageStream(imageStream()));
  }

  static Node node(String name, String ostree) {
    return Policies.node(
        name,
        Map.of(
            "feature.node.kubernetes.io/pci-10de.present",
            "true",
            "feature.node.kubernetes.io/system-os_release.ID",
            "rhcos",
            "feature.node.kubernetes.io/system-os_release.VERSION_ID",
            "4.18",
            OSTREE,
            ostree));
  }

  static Node cpuNode(String name, String ostree) {
    return Policies.node(name, Map.of(OSTREE, ostree + "-cpu"));
  }

  static ClusterPolicy policy(String spec) {
    return Policies.withSpec(spec);
  }

  static Map<String, DaemonSet> drivers(ClusterPolicy policy, ClusterFacts facts) {
    Map<String, DaemonSet> out = new LinkedHashMap<>();
    for (HasMetadata o :
        Operands.byName(OperandNames.DRIVER).render(policy, facts, Policies.config())) {
      if (o instanceof DaemonSet ds) {
        out.put(ds.getMetadata().getName(), ds);
      }
    }
    return out;
  }

  static Map<String, String> env(Container c) {
    return c.getEnv().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }

  @Test
  void theImageStreamsTagsAreTheImagesPerRhcosVersion() {
    assertThat(facts().driverToolkit().images()).containsExactly(Map.entry(V1, DTK_IMAGE));
    assertThat(facts().driverToolkit().rhcosVersions())
        .as("GPU nodes only")
        .containsExactly(V1, V2);
    assertThat(facts().driverToolkit().imageStream()).isTrue();
    // What the test builds is OpenShift's ImageStream type, field for field.
    OpenShiftTypes.strict(imageStream(), ImageStream.class);
  }

  @Test
  void oneDaemonSetPerRhcosVersionWithTheToolkitSidecar() {
    Map<String, DaemonSet> drivers = drivers(policy("  {}\n"), facts());
    assertThat(drivers.keySet())
        .containsExactly("nvidia-driver-daemonset-" + V1, "nvidia-driver-daemonset-" + V2);
    for (String version : List.of(V1, V2)) {
      String name = "nvidia-driver-daemonset-" + version;
      DaemonSet ds = drivers.get(name);
      assertThat(ds.getMetadata().getLabels())
          .containsEntry("app", name)
          .containsEntry("openshift.driver-toolkit.rhcos", version)
          .containsEntry("openshift.driver-toolkit", "true");
      assertThat(ds.getSpec().getSelector().getMatchLabels()).containsEntry("app", name);
      assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
          .containsEntry("app", name)
          .containsEntry("openshift.driver-toolkit", "true");
      PodSpec pod = ds.getSpec().getTemplate().getSpec();
      assertThat(pod.getNodeSelector())
          .containsEntry(OSTREE, version)
          .containsEntry("nvidia.com/gpu.deploy.driver", "true");

      Container driver = DaemonSets.container(pod, "nvidia-driver-ctr");
      assertThat(driver.getCommand()).containsExactly("ocp_dtk_entrypoint");
      assertThat(driver.getArgs()).containsExactly("nv-ctr-run-with-dtk");
      assertThat(driver.getVolumeMounts())
          .extracting(VolumeMount::getName, VolumeMount::getMountPath)
          .contains(
              org.assertj.core.groups.Tuple.tuple(
                  "shared-nvidia-driver-toolkit", "/mnt/shared-nvidia-driver-toolkit"));
      assertThat(pod.getVolumes())
          .filteredOn(v -> v.getName().equals("shared-nvidia-driver-toolkit"))
          .singleElement()
          .satisfies(v -> assertThat(v.getEmptyDir()).isNotNull());

      Container dtk = DaemonSets.container(pod, "openshift-driver-toolkit-ctr");
      assertThat(dtk.getCommand()).containsExactly("bash", "-xc");
      assertThat(dtk.getArgs())
          .singleElement()
          .asString()
          .startsWith("until [ -f /mnt/shared-nvidia-driver-toolkit/dir_prepared ]")
          .endsWith("exec /mnt/shared-nvidia-driver-toolkit/ocp_dtk_entrypoint dtk-build-driver");
      assertThat(dtk.getSecurityContext().getPrivileged()).isTrue();
      assertThat(dtk.getSecurityContext().getSeLinuxOptions().getLevel()).isEqualTo("s0");
      assertThat(env(dtk))
          .containsEntry("RHCOS_VERSION", version)
          .containsEntry("NVIDIA_VISIBLE_DEVICES", "void")
          .doesNotContainKeys("GDS_ENABLED", "GDRCOPY_ENABLED");
      assertThat(dtk.getVolumeMounts())
          .extracting(VolumeMount::getName, VolumeMount::getMountPath)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(
                  "shared-nvidia-driver-toolkit", "/mnt/shared-nvidia-driver-toolkit"),
              org.assertj.core.groups.Tuple.tuple("var-log", "/var/log"),
              org.assertj.core.groups.Tuple.tuple(
                  "mlnx-ofed-usr-src", "/run/mellanox/drivers/usr/src"),
              org.assertj.core.groups.Tuple.tuple("host-os-release", "/host-etc/os-release"));
    }
    // V1 has its tag: the toolkit image; V2 has none: the driver image, and both are told.
    PodSpec tagged = drivers.get("nvidia-driver-daemonset-" + V1).getSpec().getTemplate().getSpec();
    assertThat(DaemonSets.container(tagged, "openshift-driver-toolkit-ctr").getImage())
        .isEqualTo(DTK_IMAGE);
    assertThat(env(DaemonSets.container(tagged, "nvidia-driver-ctr")))
        .doesNotContainKey("RHCOS_IMAGE_MISSING");
    assertThat(drivers.get("nvidia-driver-daemonset-" + V1).getMetadata().getLabels())
        .doesNotContainKey("openshift.driver-toolkit.rhcos-image-missing");

    DaemonSet missing = drivers.get("nvidia-driver-daemonset-" + V2);
    PodSpec fallback = missing.getSpec().getTemplate().getSpec();
    Container driver = DaemonSets.container(fallback, "nvidia-driver-ctr");
    Container dtk = DaemonSets.container(fallback, "openshift-driver-toolkit-ctr");
    assertThat(driver.getImage()).startsWith("nvcr.io/nvidia/driver:").endsWith("-rhcos4.18");
    assertThat(dtk.getImage()).isEqualTo(driver.getImage());
    assertThat(env(driver))
        .containsEntry("RHCOS_IMAGE_MISSING", "true")
        .containsEntry("RHCOS_VERSION", V2);
    assertThat(env(dtk)).containsEntry("RHCOS_IMAGE_MISSING", "true");
    assertThat(missing.getMetadata().getLabels())
        .containsEntry("openshift.driver-toolkit.rhcos-image-missing", "true");
    assertThat(missing.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("openshift.driver-toolkit.rhcos-image-missing", "true");
    // Each DaemonSet's driver config digest is its own (the images differ).
    assertThat(env(driver).get("DRIVER_CONFIG_DIGEST"))
        .isNotEqualTo(
            env(DaemonSets.container(tagged, "nvidia-driver-ctr")).get("DRIVER_CONFIG_DIGEST"));
  }

  @Test
  void gdsAndGdrcopyBuildWithTheToolkitToo() {
    Map<String, DaemonSet> drivers =
        drivers(policy("  gds: {enabled: true}\n  gdrcopy: {enabled: true}\n"), facts());
    PodSpec pod = drivers.get("nvidia-driver-daemonset-" + V1).getSpec().getTemplate().getSpec();
    Container fs = DaemonSets.container(pod, "nvidia-fs-ctr");
    assertThat(fs.getCommand()).containsExactly("ocp_dtk_entrypoint");
    assertThat(fs.getArgs()).containsExactly("nv-fs-ctr-run-with-dtk");
    Container gdr = DaemonSets.container(pod, "nvidia-gdrcopy-ctr");
    assertThat(gdr.getCommand()).containsExactly("ocp_dtk_entrypoint");
    assertThat(gdr.getArgs()).containsExactly("gdrcopy-ctr-run-with-dtk");
    assertThat(List.of(fs, gdr))
        .allSatisfy(
            c ->
                assertThat(c.getVolumeMounts())
                    .extracting(VolumeMount::getName)
                    .contains("shared-nvidia-driver-toolkit"));
    assertThat(env(DaemonSets.container(pod, "openshift-driver-toolkit-ctr")))
        .containsEntry("GDS_ENABLED", "true")
        .containsEntry("GDRCOPY_ENABLED", "true");
  }

  /** Where it is not used: one DaemonSet as elsewhere, without the sidecar or its folder. */
  @Test
  void notUsedWhenOffMissingOrPrecompiled() {
    ClusterFacts noStream =
        facts().withDriverToolkit(facts().driverToolkit().withImageStream(null));
    ClusterFacts noRhcosLabel =
        facts()
            .withDriverToolkit(
                new DriverToolkitFacts(List.of(), true, facts().driverToolkit().images()));
    ClusterFacts notOpenShift = facts().withOpenShift(false);
    Map<String, ClusterFacts> cases =
        Map.of(
            "turned off", facts(),
            "no ImageStream", noStream,
            "no OSTree label", noRhcosLabel,
            "not OpenShift", notOpenShift);
    for (var c : cases.entrySet()) {
      ClusterPolicy policy =
          policy(
              c.getKey().equals("turned off")
                  ? "  operator: {use_ocp_driver_toolkit: false}\n"
                  : "  {}\n");
      Map<String, DaemonSet> drivers = drivers(policy, c.getValue());
      assertThat(drivers.keySet()).as(c.getKey()).containsExactly("nvidia-driver-daemonset");
      PodSpec pod = drivers.values().iterator().next().getSpec().getTemplate().getSpec();
      assertThat(pod.getContainers())
          .as(c.getKey())
          .extracting(Container::getName)
          .doesNotContain("openshift-driver-toolkit-ctr");
      assertThat(pod.getVolumes())
          .as(c.getKey())
          .noneMatch(v -> v.getName().equals("shared-nvidia-driver-toolkit"));
      assertThat(DaemonSets.container(pod, "nvidia-driver-ctr").getCommand())
          .as(c.getKey())
          .doesNotContain("ocp_dtk_entrypoint");
    }
    ClusterFacts kernels = facts().withKernelVersions(List.of("5.14.0-427.50.1.el9_4.x86_64"));
    Map<String, DaemonSet> precompiled =
        drivers(policy("  driver: {usePrecompiled: true}\n"), kernels);
    assertThat(precompiled.keySet())
        .singleElement()
        .asString()
        .startsWith("nvidia-driver-daemonset-5.14.0-427.50.1.el9.4");
  }

  /** The ImageStream is read only where the toolkit could be used. */
  @Test
  void requestedOnlyOnOpenShiftUnlessTurnedOff() {
    assertThat(DriverToolkitFacts.requested(policy("  {}\n").getSpec(), true)).isTrue();
    assertThat(DriverToolkitFacts.requested(null, true)).isTrue();
    assertThat(DriverToolkitFacts.requested(policy("  {}\n").getSpec(), false)).isFalse();
    assertThat(
            DriverToolkitFacts.requested(
                policy("  operator: {use_ocp_driver_toolkit: false}\n").getSpec(), true))
        .isFalse();
    // Off OpenShift no client is needed: observe returns the facts as they are.
    ClusterFacts off = facts().withOpenShift(false);
    assertThat(DriverToolkitFacts.observe(off, null, null)).isSameAs(off);
  }
}
