package io.gpuoperator.cli.realnode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.common.OperandStatus;
import io.gpuoperator.api.common.State;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.sim.controlplane.ControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The stack on a real kubelet and containerd ({@link RealNode}), installed with the chart as a user
 * installs it (cli/src/test/resources/realnode/values.yaml), with simulated GPUs (the node profile
 * realnode/node-profile.yaml: two A100s) on a machine without an NVIDIA driver, with the machine's
 * own GPUs through NVML where one is loaded ({@code /proc/driver/nvidia/version}). The tests run in
 * order on one installation; each names what it proves (docs/real-node.md).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealNodeE2EIT {
  static final String NS = "gpu-operator";
  private static final Path CHART = RealNode.REPO.resolve("deploy/helm/gpu-operator");
  private static final Path RESOURCES = RealNode.REPO.resolve("cli/src/test/resources/realnode");

  /** A loaded NVIDIA driver: the suite uses the machine's GPUs instead of simulated ones. */
  static final boolean REAL_GPUS = Files.exists(Path.of("/proc/driver/nvidia/version"));

  /** The GPUs the node has: the machine's device nodes, or the two of the node profile. */
  private static final int GPUS = REAL_GPUS ? RealNode.gpuDeviceNodes().size() : 2;

  private static ControlPlane cp;
  private static RealNode node;
  private static KubernetesClient c;

  @BeforeAll
  static void start() throws Exception {
    String why = RealNode.unavailable();
    if (why == null) {
      why = RealNode.projectImageProblem();
    }
    if (why != null) {
      if ("true".equals(System.getenv("CI"))) {
        throw new IllegalStateException("CI runs the real-node suite, but " + why);
      }
      Assumptions.abort(why);
    }
    cp = RealNode.controlPlane().start();
    node =
        RealNode.start(
            cp,
            List.of(RealNode.projectImageArchive(), RealNode.busyboxArchive()),
            REAL_GPUS ? null : RESOURCES.resolve("node-profile.yaml").toString());
    c = cp.client();
  }

  @AfterAll
  static void stop() {
    try {
      if (node != null) {
        node.close();
      }
    } finally {
      if (cp != null) {
        cp.close();
      }
    }
  }

  @Test
  @Order(1)
  void podsReachThisMachineAndNothingElse() throws Exception {
    long dropped = node.forwardDrops();
    Pod pod =
        run(
            "net-probe",
            "if nc -w 3 10.0.0.1 443 </dev/null; then echo api=ok; else echo api=no; fi;"
                + " if nc -w 3 192.0.2.1 53 </dev/null; then echo out=ok; else echo out=no; fi");
    await().atMost(Duration.ofSeconds(90)).until(() -> phase(pod).equals("Succeeded"));
    String log = c.pods().resource(pod).getLog();
    // The bridge turned forwarding on, as on any node: only the node's rule keeps the pods in.
    assertThat(RealNode.ipForward()).isEqualTo("1");
    assertThat(log).contains("api=ok").contains("out=no");
    assertThat(node.forwardDrops()).as("packets dropped on their way out").isGreaterThan(dropped);
    c.pods().resource(pod).delete();
  }

  /** A pod started before the chart: the toolkit's containerd restart must not touch it. */
  private static Pod bystander;

  private static String bystanderContainer;

  @Test
  @Order(2)
  void theChartInstallsAndEveryOperandRuns() throws Exception {
    bystander = run("bystander", "sleep 100000");
    await().atMost(Duration.ofSeconds(60)).until(() -> phase(bystander).equals("Running"));
    bystanderContainer = containerId(bystander);

    var install =
        new Helm(CHART)
            .install()
            .withName("gpu-operator")
            .withNamespace(NS)
            .createNamespace()
            .withKubeConfig(cp.kubeconfig())
            .withValuesFile(RESOURCES.resolve("values.yaml"));
    if (REAL_GPUS) {
      install.set("operator.simulatedHardwareDir", ""); // NVML on the machine's GPUs
    }
    var release = install.call();
    assertThat(release.getStatus()).isEqualTo("deployed");

    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              ClusterPolicy p = c.resources(ClusterPolicy.class).withName("cluster-policy").get();
              assertThat(p.getStatus()).as("ClusterPolicy status").isNotNull();
              assertThat(p.getStatus().state)
                  .as("ClusterPolicy state; operands:%s\npods:%s", operands(p), pods())
                  .isEqualTo(State.READY);
            });
    List<DaemonSet> sets = c.apps().daemonSets().inNamespace(NS).list().getItems();
    assertThat(sets).isNotEmpty();
    for (DaemonSet ds : sets) {
      assertThat(ds.getStatus().getNumberReady())
          .as("%s ready pods", ds.getMetadata().getName())
          .isEqualTo(ds.getStatus().getDesiredNumberScheduled());
    }
  }

  @Test
  @Order(3)
  void featureDiscoveryLabelsTheNodeAndTheDevicePluginAdvertisesItsGpus() {
    Node n = c.nodes().withName(node.name()).get();
    assertThat(n.getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu.count", Integer.toString(GPUS))
        .containsEntry("nvidia.com/gpu.present", "true")
        .containsKey("nvidia.com/gpu.product");
    if (!REAL_GPUS) {
      assertThat(n.getMetadata().getLabels())
          .containsEntry("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB");
    }
    assertThat(n.getStatus().getAllocatable())
        .containsEntry("nvidia.com/gpu", new Quantity(Integer.toString(GPUS)));
  }

  @Test
  @Order(3)
  void theValidatorLinksTheDeviceNodesUnderDevChar() throws Exception {
    // As the original: /dev/char/<major>:<minor> for the control node and each GPU's.
    List<Path> nodes = new ArrayList<>(RealNode.gpuDeviceNodes());
    nodes.add(Path.of("/dev/nvidiactl"));
    for (Path dev : nodes) {
      Path link = Path.of("/dev/char", RealNode.deviceNumber(dev));
      assertThat(Files.isSymbolicLink(link)).as(link + " is a link").isTrue();
      assertThat(link.toRealPath()).as(link.toString()).isEqualTo(dev);
    }
    assertThat(nodes).hasSize(GPUS + 1);
  }

  /** The workload pod that asks the device plugin for a GPU. */
  private static Pod workload;

  @Test
  @Order(4)
  void aPodAskingForAGpuGetsItsDeviceThroughTheDevicePluginAndCdi() throws Exception {
    workload =
        c.pods()
            .inNamespace("default")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("gpu-workload")
                    .endMetadata()
                    .withNewSpec()
                    .withTerminationGracePeriodSeconds(1L)
                    .addNewContainer()
                    .withName("main")
                    .withImage(RealNode.BUSYBOX)
                    .withImagePullPolicy("Never")
                    .withCommand(
                        "sh", "-c", "ls -l /dev/nvidia*; env | grep NVIDIA | sort; sleep 100000")
                    .withNewResources()
                    .addToLimits("nvidia.com/gpu", new Quantity("1"))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> assertThat(phase(workload)).as(describe(workload)).isEqualTo("Running"));
    // What containerd gave the container, from its OCI spec: one GPU's device node (CDI edits).
    var spec = node.ociSpec(containerId(workload));
    List<String> gpuNodes = new java.util.ArrayList<>();
    for (var d : spec.path("linux").path("devices")) {
      if (d.path("path").asText().matches("/dev/nvidia[0-9]+")) {
        assertThat(d.path("major").asInt()).as(d.toString()).isEqualTo(195);
        gpuNodes.add(d.path("path").asText());
      }
    }
    assertThat(gpuNodes).as("GPU device nodes in the OCI spec").hasSize(1);
    // ... and what the process sees: that node, and the device plugin's env.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(c.pods().resource(workload).getLog())
                    .contains(gpuNodes.get(0))
                    .contains("NVIDIA_VISIBLE_DEVICES="));
  }

  @Test
  @Order(5)
  void theExporterAttributesTheWorkloadThroughTheKubeletsPodResources() throws Exception {
    Pod exporter = pod("app", "nvidia-dcgm-exporter");
    String url = "http://" + exporter.getStatus().getPodIP() + ":9400/metrics";
    var http = java.net.http.HttpClient.newHttpClient();
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              String body =
                  http.send(
                          java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                              .timeout(Duration.ofSeconds(5))
                              .build(),
                          java.net.http.HttpResponse.BodyHandlers.ofString())
                      .body();
              assertThat(body.lines().filter(l -> l.startsWith("DCGM_FI_DEV_GPU_UTIL{")))
                  .as("scraped from %s", url)
                  .hasSize(GPUS)
                  .anyMatch(
                      l ->
                          l.contains("pod=\"gpu-workload\"")
                              && l.contains("namespace=\"default\"")
                              && l.contains("container=\"main\""));
            });
  }

  @Test
  @Order(6)
  void theToolkitConfiguredContainerdAndRestartedItWithoutTouchingRunningPods() throws Exception {
    String config = Files.readString(RealNode.CONTAINERD_CONFIG);
    assertThat(config).contains("imports = [\"/etc/containerd/conf.d/99-nvidia.toml\"]");
    String dropIn = Files.readString(Path.of("/etc/containerd/conf.d/99-nvidia.toml"));
    assertThat(dropIn)
        .contains("containerd.runtimes.nvidia]")
        .contains("containerd.runtimes.nvidia-cdi]")
        .contains("cdi_spec_dirs");
    assertThat(node.containerdStarts())
        .as("containerd started again by the toolkit")
        .isGreaterThan(1);
    // The pod started before the restart still runs the same container, never restarted.
    Pod now = c.pods().resource(bystander).get();
    assertThat(now.getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();
    assertThat(containerId(now)).isEqualTo(bystanderContainer);
    assertThat(node.ctr("tasks", "ls")).contains(bare(bystanderContainer));
  }

  @Test
  @Order(7)
  void theMigManagerAppliesAConfigChange() {
    Assumptions.assumeTrue(
        "true"
            .equals(
                c.nodes()
                    .withName(node.name())
                    .get()
                    .getMetadata()
                    .getLabels()
                    .get("nvidia.com/mig.capable")),
        "these GPUs have no MIG");
    c.nodes()
        .withName(node.name())
        .edit(
            n -> {
              n.getMetadata().getLabels().put("nvidia.com/mig.config", "all-1g.5gb");
              return n;
            });
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(c.nodes().withName(node.name()).get().getMetadata().getLabels())
                    .as("pods:%s", pods())
                    .containsEntry("nvidia.com/mig.config.state", "success"));
  }

  @Test
  @Order(8)
  void everyContainerRunsWithExactlyThePrivilegesItsManifestDeclares() throws Exception {
    // The MIG change restarted the GPU operands: every pod is back, each container started.
    awaitOperandsReady();
    assertPrivileges(c.pods().inNamespace(NS).list().getItems(), 16);
  }

  /** Every operand DaemonSet has all its pods ready, and every one of their containers ran. */
  private static void awaitOperandsReady() {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              for (DaemonSet ds : c.apps().daemonSets().inNamespace(NS).list().getItems()) {
                assertThat(ds.getStatus().getNumberReady())
                    .as("%s ready; pods:%s", ds.getMetadata().getName(), pods())
                    .isEqualTo(ds.getStatus().getDesiredNumberScheduled());
              }
              for (Pod p : c.pods().inNamespace(NS).list().getItems()) {
                assertThat(p.getStatus().getPhase())
                    .as("%s; pods:%s", p.getMetadata().getName(), pods())
                    .isEqualTo("Running");
              }
            });
  }

  /** The DRA claim the workload of step 9 uses, and its pod. */
  private static final String CLAIM = "one-gpu";

  /**
   * Issue 33 finding 6 on the real kubelet: a policy edit rolls the device plugin with a surge (the
   * new pod starts next to the old one and registers on the next socket name); once the old pod is
   * gone, the kubelet (whose 1.36 handover cuts the newer plugin off when the older stream ends)
   * holds the new plugin's GPUs, across the next node status writes, and a running GPU pod is not
   * touched.
   */
  @Test
  @Order(9)
  void aPolicyEditRollsTheDevicePluginNextToTheOldOneAndTheGpusStayAllocatable() throws Exception {
    Pod old = pod("app", DEVICE_PLUGIN);
    Pod gpuPod = c.pods().resource(workload).get();
    boolean gpuPodRuns = gpuPod != null && "Running".equals(gpuPod.getStatus().getPhase());
    String gpuContainer = gpuPodRuns ? containerId(gpuPod) : null;
    c.resources(ClusterPolicy.class)
        .withName("cluster-policy")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"devicePlugin\":{\"env\":[{\"name\":\"ROLL_PROBE\",\"value\":\"1\"}]}}}");
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              List<Pod> now =
                  c.pods().inNamespace(NS).withLabel("app", DEVICE_PLUGIN).list().getItems();
              assertThat(now).as("device plugin pods; pods:%s", pods()).hasSize(1);
              Pod p = now.get(0);
              assertThat(p.getMetadata().getUid()).isNotEqualTo(old.getMetadata().getUid());
              assertThat(p.getSpec().getContainers().get(0).getEnv())
                  .anySatisfy(e -> assertThat(e.getName()).isEqualTo("ROLL_PROBE"));
              assertThat(p.getStatus().getContainerStatuses())
                  .allSatisfy(st -> assertThat(st.getReady()).isTrue());
            });
    // The kubelet's handover cut the new plugin off when the old one stopped; it registered again.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(c.nodes().withName(node.name()).get().getStatus().getAllocatable())
                    .containsEntry("nvidia.com/gpu", new Quantity(Integer.toString(GPUS))));
    Thread.sleep(12_000); // past the kubelet's next node status write (every 10 s)
    assertThat(c.nodes().withName(node.name()).get().getStatus().getAllocatable())
        .containsEntry("nvidia.com/gpu", new Quantity(Integer.toString(GPUS)));
    if (gpuPodRuns) {
      Pod after = c.pods().resource(workload).get();
      assertThat(after.getStatus().getPhase()).isEqualTo("Running");
      assertThat(containerId(after)).isEqualTo(gpuContainer);
      assertThat(after.getStatus().getContainerStatuses().get(0).getRestartCount()).isZero();
    }
  }

  @Test
  @Order(10)
  void withTheDraDriverAClaimsPodGetsItsGpuAndIsUnpreparedOnDelete() throws Exception {
    c.pods().resource(workload).withGracePeriod(0).delete();
    c.resources(ClusterPolicy.class)
        .withName("cluster-policy")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"devicePlugin\":{\"enabled\":false},\"draDriver\":{\"enabled\":true}}}");
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(slices())
                  .as("ResourceSlices of gpu.nvidia.com; pods:%s", pods())
                  .isNotEmpty();
              assertThat(c.apps().daemonSets().inNamespace(NS).withName(DEVICE_PLUGIN).get())
                  .as("the device plugin's DaemonSet")
                  .isNull();
            });
    var claim =
        c.genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
            .inNamespace("default")
            .resource(
                Serialization.unmarshal(
                    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: "
                        + CLAIM
                        + "}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
                        + "        deviceClassName: gpu.nvidia.com\n",
                    GenericKubernetesResource.class))
            .create();
    Pod pod =
        c.pods()
            .inNamespace("default")
            .resource(
                Serialization.unmarshal(
                    "apiVersion: v1\nkind: Pod\nmetadata: {name: claim-workload}\nspec:\n"
                        + "  terminationGracePeriodSeconds: 1\n"
                        + "  resourceClaims:\n  - {name: gpu, resourceClaimName: "
                        + CLAIM
                        + "}\n  containers:\n  - name: main\n    image: "
                        + RealNode.BUSYBOX
                        + "\n    imagePullPolicy: Never\n"
                        + "    command: [sh, -c, 'ls -l /dev/nvidia*; sleep 100000']\n"
                        + "    resources:\n      claims:\n      - {name: gpu}\n",
                    Pod.class))
            .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(phase(pod)).as(describe(pod)).isEqualTo("Running"));
    var spec = node.ociSpec(containerId(pod));
    long gpus = 0;
    for (var d : spec.path("linux").path("devices")) {
      if (d.path("path").asText().matches("/dev/nvidia[0-9]+")) {
        gpus++;
      }
    }
    assertThat(gpus).as("GPU device nodes in the claim pod's OCI spec").isEqualTo(1);
    Path cdi =
        Path.of("/var/run/cdi/k8s.gpu.nvidia.com-claim_" + claim.getMetadata().getUid() + ".json");
    assertThat(cdi).as("the claim's CDI spec, written at prepare").exists();
    // The DRA plugin's own pod runs with what it declares, too.
    assertPrivileges(c.pods().inNamespace(NS).withLabel("app", DRA_PLUGIN).list().getItems(), 2);

    c.pods().resource(pod).delete();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(c.pods().resource(pod).get()).as("the claim's pod").isNull();
              assertThat(cdi).as("the claim's CDI spec, removed at unprepare").doesNotExist();
              var reserved =
                  c.genericKubernetesResources("resource.k8s.io/v1", "ResourceClaim")
                      .inNamespace("default")
                      .withName(CLAIM)
                      .get()
                      .getAdditionalProperties()
                      .get("status");
              assertThat(String.valueOf(reserved)).doesNotContain("reservedFor");
            });
  }

  @Test
  @Order(11)
  void deletingTheClusterPolicyLeavesNoOperandPod() {
    c.resources(ClusterPolicy.class).withName("cluster-policy").delete();
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(
                        c.pods().inNamespace(NS).list().getItems().stream()
                            .map(p -> p.getMetadata().getName())
                            .filter(n -> !n.startsWith("gpu-operator-")))
                    .as("operand pods")
                    .isEmpty());
    // The toolkit reverted containerd's configuration on its way out.
    assertThat(Path.of("/etc/containerd/conf.d/99-nvidia.toml")).doesNotExist();
  }

  private static final String DEVICE_PLUGIN = "nvidia-device-plugin-daemonset";
  private static final String DRA_PLUGIN = "nvidia-dra-driver-gpu-kubelet-plugin";

  private static List<GenericKubernetesResource> slices() {
    return c
        .genericKubernetesResources("resource.k8s.io/v1", "ResourceSlice")
        .list()
        .getItems()
        .stream()
        .filter(
            r -> {
              var spec = (Map<?, ?>) r.getAdditionalProperties().get("spec");
              return spec != null
                  && "gpu.nvidia.com".equals(spec.get("driver"))
                  && node.name().equals(spec.get("nodeName"));
            })
        .toList();
  }

  /**
   * Every container of these pods (init containers too) runs with the privileges its pod spec
   * declares: the OCI spec containerd gave runc, and for a running container its process on the
   * node ({@code /proc/<pid>/status}) have the same user, effective capabilities, no_new_privs and
   * seccomp filter.
   */
  private static void assertPrivileges(List<Pod> pods, int atLeast) throws Exception {
    Set<String> bounding =
        Privileges.names(
            Long.parseUnsignedLong(
                RealNode.procStatus(ProcessHandle.current().pid()).get("CapBnd"), 16));
    List<String> checked = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    for (Pod p : pods) {
      int containers =
          p.getSpec().getContainers().size()
              + (p.getSpec().getInitContainers() == null
                  ? 0
                  : p.getSpec().getInitContainers().size());
      Map<String, Container> specs = new HashMap<>();
      List<ContainerStatus> statuses = new ArrayList<>();
      if (p.getSpec().getInitContainers() != null) {
        p.getSpec().getInitContainers().forEach(x -> specs.put(x.getName(), x));
      }
      p.getSpec().getContainers().forEach(x -> specs.put(x.getName(), x));
      if (p.getStatus().getInitContainerStatuses() != null) {
        statuses.addAll(p.getStatus().getInitContainerStatuses());
      }
      statuses.addAll(p.getStatus().getContainerStatuses());
      assertThat(statuses.stream().filter(st -> st.getContainerID() != null))
          .as("%s: every container started", p.getMetadata().getName())
          .hasSize(containers);
      for (ContainerStatus st : statuses) {
        Container spec = specs.get(st.getName());
        String name = p.getMetadata().getName() + "/" + st.getName();
        Privileges want =
            Privileges.declared(
                spec,
                p.getSpec().getSecurityContext(),
                OperandImages.isProjectImage(spec.getImage()) ? Privileges.IMAGE_USER : 0);
        Privileges oci = Privileges.ofOciSpec(node.ociSpec(st.getContainerID()), bounding);
        if (!oci.equals(want)) {
          wrong.add(name + ": declares " + want + ", containerd's spec gives " + oci);
        }
        if (st.getState().getRunning() != null) {
          Privileges proc =
              Privileges.ofProcess(RealNode.procStatus(node.pid(st.getContainerID())), bounding);
          if (!proc.equals(want)) {
            wrong.add(name + ": declares " + want + ", its process has " + proc);
          }
        }
        checked.add(name);
      }
    }
    assertThat(wrong).as("containers checked: %s", checked).isEmpty();
    assertThat(checked).hasSizeGreaterThanOrEqualTo(atLeast);
  }

  private static String bare(String containerId) {
    return containerId.substring(containerId.indexOf("://") + 3);
  }

  /** The operand pod with this label in the operator's namespace. */
  private static Pod pod(String label, String value) {
    return c.pods().inNamespace(NS).withLabel(label, value).list().getItems().get(0);
  }

  private static String describe(Pod pod) {
    Pod p = c.pods().resource(pod).get();
    return p == null ? "gone" : p.getMetadata().getName() + " " + p.getStatus();
  }

  private static Pod run(String name, String script) {
    return c.pods()
        .inNamespace("default")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(1L)
                .addNewContainer()
                .withName("main")
                .withImage(RealNode.BUSYBOX)
                .withImagePullPolicy("Never")
                .withCommand("sh", "-c", script)
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static String phase(Pod pod) {
    Pod p = c.pods().resource(pod).get();
    return p == null || p.getStatus() == null || p.getStatus().getPhase() == null
        ? ""
        : p.getStatus().getPhase();
  }

  private static String containerId(Pod pod) {
    return c.pods().resource(pod).get().getStatus().getContainerStatuses().get(0).getContainerID();
  }

  /** The last lines a container wrote (the previous run's when it restarted). */
  /** The spec files in the node's CDI directories (this machine's: the node is this machine). */
  static String cdiSpecs() {
    List<String> out = new java.util.ArrayList<>();
    for (String dir : List.of("/var/run/cdi", "/etc/cdi")) {
      try (var files = Files.list(Path.of(dir))) {
        files.forEach(f -> out.add(f.toString()));
      } catch (java.io.IOException e) {
        out.add(dir + " (" + e.getClass().getSimpleName() + ")");
      }
    }
    return out.toString();
  }

  static String log(Pod p, String container) {
    try {
      return c.pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(p.getMetadata().getName())
          .inContainer(container)
          .tailingLines(15)
          .getLog()
          .replace("\n", "\n      ");
    } catch (RuntimeException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static String operands(ClusterPolicy p) {
    StringBuilder out = new StringBuilder();
    for (var o :
        p.getStatus().operands == null ? List.<OperandStatus>of() : p.getStatus().operands) {
      out.append("\n  ")
          .append(o.name)
          .append('=')
          .append(o.state == null ? null : o.state.value())
          .append(' ')
          .append(o.nodesReady)
          .append('/')
          .append(o.nodesDesired)
          .append(o.message == null ? "" : " " + o.message);
    }
    return out.toString();
  }

  /** Every pod of the operator's namespace with its phase and container states, for messages. */
  static String pods() {
    StringBuilder out = new StringBuilder();
    for (Pod p : c.pods().inNamespace(NS).list().getItems()) {
      out.append("\n  ").append(p.getMetadata().getName()).append(' ');
      out.append(p.getStatus().getPhase());
      var statuses = new java.util.ArrayList<io.fabric8.kubernetes.api.model.ContainerStatus>();
      if (p.getStatus().getInitContainerStatuses() != null) {
        statuses.addAll(p.getStatus().getInitContainerStatuses());
      }
      if (p.getStatus().getContainerStatuses() != null) {
        statuses.addAll(p.getStatus().getContainerStatuses());
      }
      for (var s : statuses) {
        out.append(' ').append(s.getName()).append('=');
        var st = s.getState();
        if (st.getRunning() != null) {
          out.append("running");
        } else if (st.getWaiting() != null) {
          out.append("waiting(")
              .append(st.getWaiting().getReason())
              .append(": ")
              .append(st.getWaiting().getMessage())
              .append(')');
        } else if (st.getTerminated() != null) {
          out.append("terminated(")
              .append(st.getTerminated().getExitCode())
              .append(' ')
              .append(st.getTerminated().getReason())
              .append(')');
        }
        out.append(" restarts=").append(s.getRestartCount());
        boolean failing =
            s.getRestartCount() > 0
                || st.getTerminated() != null && st.getTerminated().getExitCode() != 0
                || st.getRunning() != null && !"Running".equals(p.getStatus().getPhase());
        if (failing) {
          out.append("\n    log of ").append(s.getName()).append(": ").append(log(p, s.getName()));
        }
      }
      // The toolkit's log says which CDI spec it wrote or removed, which the validator waits for.
      if (p.getMetadata().getName().startsWith("nvidia-container-toolkit-daemonset")) {
        out.append("\n    log of the toolkit: ").append(log(p, "nvidia-container-toolkit-ctr"));
      }
    }
    out.append("\n  CDI specs on the node: ").append(cdiSpecs());
    return out.toString();
  }
}
