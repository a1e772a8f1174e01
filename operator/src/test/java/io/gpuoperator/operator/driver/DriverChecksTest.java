package io.gpuoperator.operator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.gpuoperator.api.v1.ClusterPolicySpec;
import io.gpuoperator.api.v1.DriverSpec;
import io.gpuoperator.api.v1.SandboxWorkloadsSpec;
import io.gpuoperator.operator.compat.DriverCompatibility;
import io.gpuoperator.operator.labels.Labels;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverChecksTest {
  private static final String CUDA12 = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";
  private static final String DEFAULT = "nvcr.io/nvidia/driver:570.124.06";

  static Node node(String name, String os, String version, String kernel, String... more) {
    Map<String, String> l = new HashMap<>();
    if (os != null) {
      l.put(Labels.NFD_OS_ID, os);
      l.put(Labels.NFD_OS_VERSION_ID, version);
    }
    if (kernel != null) {
      l.put(Labels.NFD_KERNEL_FULL, kernel);
    }
    for (int i = 0; i < more.length; i += 2) {
      l.put(more[i], more[i + 1]);
    }
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(l).endMetadata().build();
  }

  private static final List<Node> FLEET =
      List.of(
          node("u1", "ubuntu", "22.04", "5.15.0-105-generic", "nvidia.com/gpu.family", "hopper"),
          node("u2", "ubuntu", "22.04", "5.15.0-106-generic", "nvidia.com/gpu.family", "ampere"),
          node("r1", "rhel", "9.2", "5.14.0-284.el9.x86_64", "nvidia.com/gpu.family", "volta"),
          node("r2", "rhel", "9.4", "5.14.0-427.el9.x86_64"),
          node("x", null, null, null));

  @Test
  void poolsAreOsesAndForPrecompiledDriversOsAndKernel() {
    assertThat(DriverPool.of(FLEET, false))
        .extracting(DriverPool::name, DriverPool::nodes)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("unknown", List.of("x")),
            org.assertj.core.groups.Tuple.tuple("rhel9", List.of("r1", "r2")),
            org.assertj.core.groups.Tuple.tuple("ubuntu22.04", List.of("u1", "u2")));
    assertThat(DriverPool.of(FLEET, true))
        .extracting(DriverPool::name)
        .containsExactly(
            "unknown",
            "rhel9/5.14.0-284.el9.x86_64",
            "rhel9/5.14.0-427.el9.x86_64",
            "ubuntu22.04/5.15.0-105-generic",
            "ubuntu22.04/5.15.0-106-generic");
  }

  private static ClusterPolicySpec spec(String version) {
    ClusterPolicySpec spec = new ClusterPolicySpec();
    spec.driver = new DriverSpec();
    spec.driver.version = version;
    return spec;
  }

  @Test
  void anIncompatiblePoolIsRefusedNamingItsNodesAndTheOthersProceed() {
    // Branch 590 dropped Volta: the RHEL pool (r1 is a Volta node) is refused, Ubuntu proceeds.
    var settings = DriverChecks.Settings.of(spec("590.10.01"), DEFAULT, CUDA12);
    var result = DriverChecks.check(settings, FLEET, DriverCompatibility.shipped(), false);
    assertThat(result.refused()).containsOnlyKeys("rhel9");
    assertThat(result.refused().get("rhel9"))
        .singleElement()
        .asString()
        .contains("volta GPUs are supported up to driver branch 580, not 590")
        .contains("(nodes r1)");
    assertThat(result.refusedNodes()).containsExactly("r1", "r2");
    assertThat(result.poolStatus())
        .extracting(p -> p.name + "=" + p.state)
        .containsExactly("unknown=ready", "rhel9=refused", "ubuntu22.04=ready");
    assertThat(result.refusedMessage()).startsWith("Driver refused for node pool(s) rhel9: volta");
    // One DaemonSet per OS: nodes without OS labels get none, and their pool says so.
    assertThat(DriverChecks.check(settings, FLEET, DriverCompatibility.shipped(), true).refused())
        .containsKey("unknown")
        .extractingByKey("unknown")
        .asString()
        .contains("no NFD os_release labels")
        .contains("(nodes x)");

    DaemonSet rhel = ds(Map.of(Labels.NFD_OS_ID, "rhel"));
    DaemonSet ubuntu = ds(Map.of(Labels.NFD_OS_ID, "ubuntu"));
    DaemonSet everyNode = ds(Map.of("nvidia.com/gpu.deploy.driver", "true"));
    assertThat(result.freezes(rhel, FLEET)).isTrue();
    assertThat(result.freezes(ubuntu, FLEET)).isFalse();
    // no OS selector (one DaemonSet for every node): it reaches the refused nodes, so it stays
    assertThat(result.freezes(everyNode, FLEET)).isFalse(); // nodes lack the deploy label
    assertThat(result.freezes(ds(Map.of()), FLEET)).isTrue();

    // The version from the default image when the policy names none: 570 runs everywhere.
    var ok = DriverChecks.Settings.of(spec(null), DEFAULT, CUDA12);
    assertThat(ok.version()).isEqualTo("570.124.06");
    assertThat(DriverChecks.check(ok, FLEET, DriverCompatibility.shipped(), false).refused())
        .isEmpty();
  }

  @Test
  void precompiledPoolsAreCheckedPerKernel() {
    ClusterPolicySpec spec = spec("550");
    spec.driver.usePrecompiled = true;
    var nodes =
        List.of(
            node("a", "ubuntu", "22.04", "5.15.0-105-generic"),
            node("b", "ubuntu", "22.04", "5.15.0-1040-gke"),
            node("c", "rhel", "9.4", "5.14.0-427.el9.x86_64"));
    var result =
        DriverChecks.check(
            DriverChecks.Settings.of(spec, DEFAULT, CUDA12),
            nodes,
            DriverCompatibility.shipped(),
            false);
    assertThat(result.refused())
        .containsOnlyKeys("rhel9/5.14.0-427.el9.x86_64", "ubuntu22.04/5.15.0-1040-gke");
    assertThat(result.refused().get("rhel9/5.14.0-427.el9.x86_64").get(0))
        .contains("no precompiled driver images for rhel9");
    assertThat(result.refused().get("ubuntu22.04/5.15.0-1040-gke").get(0))
        .contains("kernel 5.15.0-1040-gke");
  }

  @Test
  void gpuDirectRdmaNeedsAnNvidiaNicAndSriovForVirtualMachines() {
    ClusterPolicySpec spec = spec("570.124.06");
    spec.driver.rdma = new DriverSpec.Rdma();
    spec.driver.rdma.enabled = true;
    var nodes =
        List.of(
            node("nic", "ubuntu", "22.04", null, DriverChecks.NIC_PRESENT, "true"),
            node("plain", "ubuntu", "22.04", null),
            node(
                "vf",
                "ubuntu",
                "22.04",
                null,
                DriverChecks.NIC_PRESENT,
                "true",
                DriverChecks.NIC_SRIOV,
                "true"));
    var bare =
        DriverChecks.check(
            DriverChecks.Settings.of(spec, DEFAULT, CUDA12),
            nodes,
            DriverCompatibility.shipped(),
            false);
    assertThat(bare.unmet())
        .singleElement()
        .satisfies(r -> assertThat(r.node).isEqualTo("plain"))
        .satisfies(r -> assertThat(r.feature).isEqualTo("rdma"))
        .satisfies(r -> assertThat(r.missing).contains(DriverChecks.NIC_PRESENT));

    spec.sandboxWorkloads = new SandboxWorkloadsSpec();
    spec.sandboxWorkloads.enabled = true;
    var vms =
        DriverChecks.check(
            DriverChecks.Settings.of(spec, DEFAULT, CUDA12),
            nodes,
            DriverCompatibility.shipped(),
            false);
    assertThat(vms.unmet()).extracting(r -> r.node).containsExactly("nic", "plain");
    assertThat(vms.unmet().get(0).missing).contains(DriverChecks.NIC_SRIOV);

    spec.driver.rdma.enabled = false;
    assertThat(
            DriverChecks.check(
                    DriverChecks.Settings.of(spec, DEFAULT, CUDA12),
                    nodes,
                    DriverCompatibility.shipped(),
                    false)
                .listedUnmet())
        .isNull();
  }

  @Test
  void imageTags() {
    assertThat(DriverChecks.tag("nvcr.io/nvidia/driver:550.54.15")).isEqualTo("550.54.15");
    assertThat(DriverChecks.tag("registry:5000/driver")).isNull();
    assertThat(DriverChecks.tag("nvcr.io/nvidia/driver@sha256:ab")).isEqualTo("sha256:ab");
  }

  private static DaemonSet ds(Map<String, String> selector) {
    return new DaemonSetBuilder()
        .withNewSpec()
        .withNewTemplate()
        .withNewSpec()
        .withNodeSelector(selector)
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }
}
