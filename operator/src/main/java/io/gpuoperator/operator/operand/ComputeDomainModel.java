package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.gpuoperator.api.OperandImages;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainSpec;
import io.gpuoperator.config.Values;
import io.gpuoperator.node.discovery.GfdLabels;
import io.gpuoperator.node.dra.ComputeDomainNames;
import io.gpuoperator.operator.validation.Violation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a ComputeDomain stands for, as NVIDIA's compute-domain controller creates it (names, labels,
 * device classes and opaque configs are theirs, so their workloads' manifests work): the workload's
 * ResourceClaimTemplate for one IMEX channel in the domain's namespace, and in the operator's
 * namespace the IMEX daemon's ResourceClaimTemplate and DaemonSet, which runs only on nodes the DRA
 * plugin labelled with the domain's UID when it prepared a channel there. No client, no I/O.
 */
public final class ComputeDomainModel {
  /** The DRA driver that publishes IMEX channels and daemon devices. */
  public static final String DRIVER = ComputeDomainNames.DRIVER;

  /** Selects the daemon device a node's IMEX daemon claims. */
  public static final String DAEMON_CLASS = "compute-domain-daemon.nvidia.com";

  /** Selects channel 0 of a node: what a workload's claim gets. */
  public static final String CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com";

  /** On the domain's objects, on its daemon pods and on its nodes: the domain's UID. */
  public static final String DOMAIN_LABEL = ComputeDomainNames.NODE_LABEL;

  /** On its claim templates: {@code Workload} or {@code Daemon}. */
  public static final String TARGET_LABEL = "resource.nvidia.com/computeDomainTarget";

  /** The NVLink clique of a node (GPU feature discovery's label), {@code <cluster uuid>.<id>}. */
  public static final String CLIQUE_LABEL = GfdLabels.CLIQUE;

  /**
   * Nodes one IMEX domain may have, as NVIDIA's controller tells its daemons (its default: an NVL72
   * rack's 18 trays).
   */
  static final int MAX_NODES_PER_IMEX_DOMAIN = 18;

  /** NVIDIA's finalizer on a ComputeDomain (its name is the domain label's). */
  public static final String FINALIZER = DOMAIN_LABEL;

  /** The daemon's container (and claim) name, NVIDIA's; also the program NVIDIA's image runs. */
  public static final String DAEMON = "compute-domain-daemon";

  /**
   * NVIDIA's DRA driver image (the original v26.7 chart's {@code draDriver} default), which holds
   * {@code compute-domain-daemon} and {@code nvidia-imex}: the daemon runs it wherever the
   * GPUCluster names this project's image, which has no IMEX daemon (see {@link #daemonImage}).
   */
  public static final String NVIDIA_DRA_DRIVER_IMAGE =
      OperandImages.nvidiaDefault(OperandImages.COMPUTE_DOMAIN_DAEMON);

  /**
   * The daemon's ServiceAccount, NVIDIA's name; the DRA driver's manifests hold it and its roles
   * (what the daemon needs with {@link #FEATURE_GATES}), which the chart ships.
   */
  public static final String SERVICE_ACCOUNT = "compute-domain-daemon-service-account";

  /**
   * The daemon's feature gates: NVIDIA's default ({@code ComputeDomainCliques=true}) has each
   * daemon write a ComputeDomainClique object, a kind this project does not define; off, the daemon
   * writes its own node's entry into the domain's {@code status.nodes}, which {@link
   * ComputeDomainStatusModel} keeps (one owner per field: the daemon its entry's clique and index,
   * the controller the domain's {@code status.status}).
   */
  public static final String FEATURE_GATES = "ComputeDomainCliques=false";

  /** NVIDIA's default log verbosity of the daemon (their chart's {@code logVerbosity}). */
  static final String LOG_VERBOSITY = "4";

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  private ComputeDomainModel() {}

  /** NVIDIA's two ComputeDomain DeviceClasses, in the server's {@code resource.k8s.io} version. */
  public static List<HasMetadata> deviceClasses(ResourceApiVersion version) {
    return List.of(
        DraDriverTransform.deviceClass(deviceClass(DAEMON_CLASS, "type == 'daemon'"), version),
        DraDriverTransform.deviceClass(
            deviceClass(
                CHANNEL_CLASS, "type == 'channel' && device.attributes['" + DRIVER + "'].id == 0"),
            version));
  }

  private static DeviceClass deviceClass(String name, String condition) {
    return new DeviceClassBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewSelector()
        .withNewCel()
        .withExpression(
            "device.driver == '" + DRIVER + "' && device.attributes['" + DRIVER + "']." + condition)
        .endCel()
        .endSelector()
        .endSpec()
        .build();
  }

  /**
   * What the API server's schema cannot check: the channel template's name must be one the server
   * accepts for a ResourceClaimTemplate. Empty when the spec is usable.
   */
  public static List<Violation> validate(ComputeDomain cd) {
    List<Violation> out = new ArrayList<>();
    ComputeDomainSpec spec = cd.getSpec();
    if (spec == null || spec.channel == null || spec.channel.resourceClaimTemplate == null) {
      out.add(new Violation("spec.channel.resourceClaimTemplate", "is required"));
      return out;
    }
    String name = spec.channel.resourceClaimTemplate.name;
    String path = "spec.channel.resourceClaimTemplate.name";
    if (name == null || name.isEmpty()) {
      out.add(new Violation(path, "is required"));
    } else if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      out.add(
          new Violation(
              path,
              Values.quote(name)
                  + " is not a valid ResourceClaimTemplate name (lower case letters, digits, '-'"
                  + " and '.', starting and ending with a letter or digit)"));
    }
    return out;
  }

  /** The name of the daemon's DaemonSet and ResourceClaimTemplate, NVIDIA's. */
  public static String daemonName(ComputeDomain cd) {
    return "computedomain-daemon-" + cd.getMetadata().getUid();
  }

  /**
   * The workload's ResourceClaimTemplate: one channel (or, with {@code allocationMode: All}, every
   * channel) of the domain, owned by the domain so that deleting it deletes the template.
   */
  public static GenericKubernetesResource workloadClaimTemplate(
      ComputeDomain cd, ResourceApiVersion version) {
    ComputeDomainSpec.AllocationMode mode = cd.getSpec().channel.allocationMode;
    Map<String, Object> parameters = config("ComputeDomainChannelConfig", cd);
    parameters.put(
        "allocationMode", (mode == null ? ComputeDomainSpec.AllocationMode.Single : mode).name());
    ObjectMeta meta =
        meta(cd, cd.getSpec().channel.resourceClaimTemplate.name, cd.getMetadata().getNamespace())
            .addToLabels(TARGET_LABEL, "Workload")
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(ComputeDomain.API_VERSION)
                    .withKind("ComputeDomain")
                    .withName(cd.getMetadata().getName())
                    .withUid(cd.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .build();
    return claimTemplate(meta, "channel", CHANNEL_CLASS, parameters, version);
  }

  /** The IMEX daemon's ResourceClaimTemplate, in the operator's namespace. */
  public static GenericKubernetesResource daemonClaimTemplate(
      ComputeDomain cd, String namespace, ResourceApiVersion version) {
    ObjectMeta meta =
        meta(cd, daemonName(cd), namespace).addToLabels(TARGET_LABEL, "Daemon").build();
    return claimTemplate(
        meta, "daemon", DAEMON_CLASS, config("ComputeDomainDaemonConfig", cd), version);
  }

  /**
   * The image the IMEX daemon runs: the DRA driver's image, or NVIDIA's ({@link
   * #NVIDIA_DRA_DRIVER_IMAGE}, from the mirror ours comes from) where that is this project's image,
   * which has no {@code compute-domain-daemon} program.
   */
  public static String daemonImage(String draDriverImage) {
    return OperandImages.isProjectImage(draDriverImage)
        ? OperandImages.onMirrorOf(NVIDIA_DRA_DRIVER_IMAGE, draDriverImage)
        : draDriverImage;
  }

  /**
   * The IMEX daemon's DaemonSet, in the operator's namespace: on the nodes labelled with the
   * domain's UID, with the daemon device claimed, tolerating every taint (as NVIDIA's does: a
   * workload may run on tainted nodes), under {@link #SERVICE_ACCOUNT}.
   */
  public static DaemonSet daemonSet(
      ComputeDomain cd, String namespace, String image, String pullPolicy, List<String> secrets) {
    String uid = cd.getMetadata().getUid();
    return new DaemonSetBuilder()
        .withMetadata(meta(cd, daemonName(cd), namespace).build())
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels(DOMAIN_LABEL, uid)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels(DOMAIN_LABEL, uid)
        .endMetadata()
        .withNewSpec()
        .withServiceAccountName(SERVICE_ACCOUNT)
        .addToNodeSelector(DOMAIN_LABEL, uid)
        .withImagePullSecrets(
            secrets == null ? List.of() : secrets.stream().map(LocalObjectReference::new).toList())
        .addToContainers(
            new ContainerBuilder()
                .withName(DAEMON)
                .withImage(daemonImage(image))
                .withImagePullPolicy(pullPolicy)
                .withCommand(DAEMON, "-v", "$(LOG_VERBOSITY)", "run")
                .withEnv(daemonEnv(cd))
                // NVIDIA's three probes, all its check: startup every second for up to 20 min
                // (IMEX waits for its peers), then liveness every minute for up to 20 min, and
                // readiness every 10 s.
                .withStartupProbe(check(1, 1200))
                .withLivenessProbe(check(60, 20))
                .withReadinessProbe(check(10, 1))
                .withNewResources()
                .addNewClaim()
                .withName(DAEMON)
                .endClaim()
                .endResources()
                .build())
        .withTolerations(
            new TolerationBuilder().withOperator("Exists").withEffect("NoSchedule").build(),
            new TolerationBuilder().withOperator("Exists").withEffect("NoExecute").build(),
            new TolerationBuilder().withOperator("Exists").withEffect("PreferNoSchedule").build())
        .addNewResourceClaim()
        .withName(DAEMON)
        .withResourceClaimTemplateName(daemonName(cd))
        .endResourceClaim()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static Probe check(int periodSeconds, int failureThreshold) {
    return new ProbeBuilder()
        .withNewExec()
        .withCommand(DAEMON, "-v", "$(LOG_VERBOSITY)", "check")
        .endExec()
        .withPeriodSeconds(periodSeconds)
        .withTimeoutSeconds(10)
        .withFailureThreshold(failureThreshold)
        .withSuccessThreshold(1)
        .build();
  }

  private static List<EnvVar> daemonEnv(ComputeDomain cd) {
    List<EnvVar> env = new ArrayList<>();
    // NVIDIA's command line passes it to -v: klog takes its verbosity only as a flag.
    env.add(new EnvVarBuilder().withName("LOG_VERBOSITY").withValue(LOG_VERBOSITY).build());
    env.add(
        new EnvVarBuilder()
            .withName("MAX_NODES_PER_IMEX_DOMAIN")
            .withValue(Integer.toString(MAX_NODES_PER_IMEX_DOMAIN))
            .build());
    env.add(field("NODE_NAME", "spec.nodeName"));
    env.add(field("POD_IP", "status.podIP"));
    env.add(field("POD_UID", "metadata.uid"));
    env.add(field("POD_NAME", "metadata.name"));
    env.add(field("POD_NAMESPACE", "metadata.namespace"));
    env.add(new EnvVarBuilder().withName("COMPUTE_DOMAIN_UUID").withValue(uid(cd)).build());
    env.add(
        new EnvVarBuilder()
            .withName("COMPUTE_DOMAIN_NAME")
            .withValue(cd.getMetadata().getName())
            .build());
    env.add(
        new EnvVarBuilder()
            .withName("COMPUTE_DOMAIN_NAMESPACE")
            .withValue(cd.getMetadata().getNamespace())
            .build());
    // runc, not the NVIDIA runtime: the daemon's GPUs come from its claim only.
    env.add(new EnvVarBuilder().withName("NVIDIA_VISIBLE_DEVICES").withValue("void").build());
    env.add(new EnvVarBuilder().withName("FEATURE_GATES").withValue(FEATURE_GATES).build());
    return env;
  }

  private static EnvVar field(String name, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  private static String uid(ComputeDomain cd) {
    return cd.getMetadata().getUid();
  }

  private static ObjectMetaBuilder meta(ComputeDomain cd, String name, String namespace) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(namespace)
        .addToLabels(DOMAIN_LABEL, uid(cd));
  }

  private static Map<String, Object> config(String kind, ComputeDomain cd) {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("apiVersion", ComputeDomain.API_VERSION);
    parameters.put("kind", kind);
    parameters.put("domainID", uid(cd));
    return parameters;
  }

  /**
   * A claim template of one request from {@code deviceClass} with the driver's opaque config; the
   * request's fields sit under {@code exactly} from {@code v1beta2}, directly in it in {@code
   * v1beta1}.
   */
  private static GenericKubernetesResource claimTemplate(
      ObjectMeta meta,
      String request,
      String deviceClass,
      Map<String, Object> parameters,
      ResourceApiVersion version) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("name", request);
    Map<String, Object> device = Map.of("deviceClassName", deviceClass);
    if (version.basicDevices()) {
      req.putAll(device);
    } else {
      req.put("exactly", device);
    }
    Map<String, Object> devices = new LinkedHashMap<>();
    devices.put("requests", List.of(req));
    devices.put(
        "config",
        List.of(
            Map.of(
                "requests",
                List.of(request),
                "opaque",
                Map.of("driver", DRIVER, "parameters", parameters))));
    GenericKubernetesResource t = new GenericKubernetesResource();
    t.setApiVersion(version.apiVersion());
    t.setKind("ResourceClaimTemplate");
    t.setMetadata(meta);
    t.setAdditionalProperty("spec", Map.of("spec", Map.of("devices", devices)));
    return t;
  }
}
