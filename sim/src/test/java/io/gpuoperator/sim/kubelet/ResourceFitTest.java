package io.gpuoperator.sim.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceFitTest {

  static Pod pod(int gpus, int initGpus) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("p")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("a")
            .withNewResources()
            .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
            .addToLimits("cpu", new Quantity("2"))
            .endResources()
            .endContainer()
            .addNewContainer()
            .withName("b")
            .withNewResources()
            .addToRequests("nvidia.com/gpu", new Quantity("1"))
            .endResources()
            .endContainer()
            .endSpec();
    Pod p = b.build();
    if (initGpus > 0) {
      p.getSpec()
          .setInitContainers(
              List.of(
                  new io.fabric8.kubernetes.api.model.ContainerBuilder()
                      .withName("i")
                      .withNewResources()
                      .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(initGpus)))
                      .endResources()
                      .build()));
    }
    return p;
  }

  @Test
  void requestsSumContainersAndTakeTheLargestInitContainer() {
    assertThat(ResourceFit.requests(pod(2, 0)))
        .containsExactly(Map.entry("nvidia.com/gpu", new BigDecimal(3)));
    assertThat(ResourceFit.requests(pod(1, 5)).get("nvidia.com/gpu")).isEqualByComparingTo("5");
  }

  @Test
  void podFitsUntilTheNodesGpusAreTaken() {
    Map<String, Quantity> node =
        Map.of("nvidia.com/gpu", new Quantity("8"), "cpu", new Quantity("1"));
    assertThat(ResourceFit.check(pod(2, 0), node, List.of())).isNull();
    assertThat(ResourceFit.check(pod(2, 0), node, List.of(pod(2, 0)))).isNull();
    var refusal = ResourceFit.check(pod(2, 0), node, List.of(pod(2, 0), pod(2, 0)));
    assertThat(refusal.reason()).isEqualTo("OutOfnvidia.com/gpu");
    assertThat(refusal.message())
        .isEqualTo(
            "Node didn't have enough resource: nvidia.com/gpu, requested: 3, used: 6, capacity: 8");
  }

  @Test
  void onlyExtendedResourcesAreChecked() {
    assertThat(ResourceFit.isExtended("nvidia.com/gpu")).isTrue();
    assertThat(ResourceFit.isExtended("nvidia.com/mig-1g.10gb")).isTrue();
    assertThat(ResourceFit.isExtended("cpu")).isFalse();
    assertThat(ResourceFit.isExtended("kubernetes.io/something")).isFalse();
  }
}
