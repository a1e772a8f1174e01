package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.v1alpha1.GPUCluster;
import io.gpuoperator.node.dra.DraPluginSettings;
import io.gpuoperator.operator.Policies;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a GPUCluster renders to, and what it reports as not acted on. */
class GpuClusterModelTest {
  static GPUCluster gc(String spec) {
    return Serialization.unmarshal(
        "apiVersion: nvidia.com/v1alpha1\nkind: GPUCluster\nmetadata: {name: gpu-cluster}\n"
            + "spec:\n"
            + spec,
        GPUCluster.class);
  }

  static List<HasMetadata> render(GPUCluster gc) {
    return GpuClusterModel.render(
        gc, Policies.facts().withResourceApi(ResourceApiVersion.V1), Policies.config());
  }

  @Test
  void anEmptySpecDeploysTheSameObjectsAsTheClusterPolicysDraDriverWaitingForTheDriver() {
    List<HasMetadata> objects = render(gc("  {}\n"));
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .contains("ServiceAccount", "ValidatingAdmissionPolicy", "DaemonSet", "DeviceClass")
        // RBAC ships in the chart (templates/operands-rbac.yaml), never rendered at run time.
        .doesNotContain("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
    objects.forEach(
        o ->
            assertThat(ManagedObjects.operandOf(o))
                .as(o.getKind())
                .isEqualTo(OperandNames.DRA_DRIVER));
    DaemonSet ds =
        (DaemonSet) objects.stream().filter(DaemonSet.class::isInstance).findFirst().get();
    var pod = ds.getSpec().getTemplate().getSpec();
    assertThat(pod.getContainers().get(0).getImage()).isEqualTo(OperandImages.projectImage());
    assertThat(pod.getInitContainers()).hasSize(1);
    assertThat(pod.getInitContainers().get(0).getName()).isEqualTo(GpuClusterModel.DRIVER_WAIT);
    assertThat(pod.getInitContainers().get(0).getArgs())
        .containsExactly(GpuClusterModel.DRIVER_WAIT_SCRIPT);
    // No device plugin with a GPUCluster: no anti-affinity against it.
    assertThat(pod.getAffinity()).isNull();
  }

  /**
   * Without a ClusterPolicy no pre-requisites operand creates RuntimeClasses: the GPUCluster
   * renders the ones its DaemonSets name (and only those), so no pod waits on a missing
   * RuntimeClass.
   */
  @Test
  void theRuntimeClassTheDaemonSetsNameIsRenderedWithThem() {
    for (String spec : List.of("  {}\n", "  draDriver: {computeDomains: {enabled: true}}\n")) {
      List<HasMetadata> objects = render(gc(spec));
      List<String> named =
          objects.stream()
              .filter(DaemonSet.class::isInstance)
              .map(o -> ((DaemonSet) o).getSpec().getTemplate().getSpec().getRuntimeClassName())
              .toList();
      assertThat(named).as(spec).containsExactly("nvidia");
      assertThat(objects)
          .as(spec)
          .filteredOn(RuntimeClass.class::isInstance)
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.getMetadata().getName()).isEqualTo("nvidia");
                assertThat(((RuntimeClass) o).getHandler()).isEqualTo("nvidia");
              });
    }
  }

  @Test
  void computeDomainsTurnOnThePluginsComputeDomainDriverThroughItsSetting() {
    for (boolean on : List.of(false, true)) {
      DaemonSet ds =
          (DaemonSet)
              render(gc("  draDriver: {computeDomains: {enabled: " + on + "}}\n")).stream()
                  .filter(DaemonSet.class::isInstance)
                  .findFirst()
                  .get();
      var c =
          DaemonSets.container(ds.getSpec().getTemplate().getSpec(), DraDriverTransform.CONTAINER);
      String value = DaemonSets.env(c, "COMPUTE_DOMAINS");
      if (on) {
        // Read back with the plugin's own parser: the one contract of name and type.
        assertThat(DraPluginSettings.COMPUTE_DOMAINS.parse(value)).isTrue();
      } else {
        assertThat(value).isNull();
      }
    }
  }

  @Test
  void anotherImageThanThisProjectsIsAnErrorNamingTheField() {
    assertThatThrownBy(
            () -> render(gc("  draDriver: {image: nvcr.io/nvidia/k8s-dra-driver-gpu:v25.8.0}\n")))
        .isInstanceOf(PolicyValidationException.class)
        .hasMessageContaining("spec.draDriver.image");
  }

  @Test
  void fieldsThatAreNotDeployedAreListedNotDropped() {
    assertThat(GpuClusterModel.unsupported(gc("  draDriver: {computeDomains: {enabled: false}}\n")))
        .isEmpty();
    List<Violation> v =
        GpuClusterModel.unsupported(
            gc(
                """
                  draDriver:
                    featureGates: {TimeSlicingSettings: true, MPSSupport: false}
                    gpus: {kubeletPlugin: {healthcheck: {enabled: true, port: 51515}}}
                    computeDomains: {enabled: true, controller: {env: [{name: X, value: y}]}}
                  dcgm: {enabled: true}
                  dcgmExporter: {enabled: true}
                """));
    assertThat(v)
        .extracting(Violation::path)
        .containsExactly(
            "spec.draDriver.computeDomains.controller",
            "spec.draDriver.featureGates",
            "spec.draDriver.gpus.kubeletPlugin.healthcheck.enabled",
            "spec.dcgm.enabled",
            "spec.dcgmExporter.enabled");
    assertThat(v.get(1).reason()).endsWith("ignored: MPSSupport, TimeSlicingSettings");
  }
}
