package io.gpuoperator.operator.operand;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.operator.cluster.OpenShift;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one owner of what makes an object the operator's: the ownership label (which operand it
 * belongs to), the content hash and its annotation, and the table of kinds operands consist of. The
 * renderer stamps every object once, after every transform ({@link #stamp}); the applier writes an
 * object only when the live one's recorded hash differs, and {@code plan} calls an object unchanged
 * by the same comparison, so the two can never disagree.
 *
 * <p>The hash covers the rendered object as written except status, the owner reference and the hash
 * annotation itself: the owner is the policy's UID, which an offline {@code plan} does not know;
 * the applier checks it separately ({@link #ownedBy}).
 */
public final class ManagedObjects {
  /**
   * Marks an object as the operator's and names its operand (e.g. {@code device-plugin}), so the
   * objects of a disabled operand are found and deleted. Nothing without it is ever deleted.
   */
  public static final String OPERAND_LABEL = "nvidia.com/gpu-operator.operand";

  /** Hash of the object's rendered content, as the original's annotation of the same name. */
  public static final String HASH_ANNOTATION = "nvidia.com/last-applied-hash";

  /** The Prometheus operator's API: objects of it exist only while its CRD does. */
  public static final String MONITORING_API_VERSION = "monitoring.coreos.com/v1";

  public static final String SERVICE_MONITOR = "ServiceMonitor";
  public static final String SERVICE_MONITOR_CRD = "servicemonitors.monitoring.coreos.com";

  /** Installed with ServiceMonitor by the Prometheus Operator, but watched on its own. */
  public static final String PROMETHEUS_RULE = "PrometheusRule";

  public static final String PROMETHEUS_RULE_CRD = "prometheusrules.monitoring.coreos.com";

  /**
   * Marks the kinds of the DRA driver that need a server with Dynamic Resource Allocation (any
   * {@code resource.k8s.io} version with structured parameters, Kubernetes 1.32+): the admission
   * policy that restricts the plugin. Each DeviceClass version needs its own version.
   */
  public static final String DRA_API = ResourceApiVersion.GROUP;

  /**
   * A kind an operand may consist of, whether its objects live in a namespace, and what the server
   * must serve for it to exist at all.
   *
   * @param requires null for kinds every supported server has; else a key that must be among the
   *     served optional APIs (a Prometheus operator kind whose CRD exists, {@link #DRA_API}, or a
   *     {@code resource.k8s.io/<version>}): objects of a kind that is not served are neither
   *     written nor listed
   */
  public record Kind(String apiVersion, String kind, boolean namespaced, String requires) {
    Kind(String apiVersion, String kind, boolean namespaced) {
      this(apiVersion, kind, namespaced, null);
    }

    /** Whether objects of this kind need a Prometheus operator CRD. */
    public boolean monitoring() {
      return MONITORING_API_VERSION.equals(apiVersion);
    }
  }

  /** Every kind an operand may consist of (listed to find existing objects). */
  public static final List<Kind> KINDS =
      List.of(
          new Kind("apps/v1", "DaemonSet", true),
          new Kind("v1", "ServiceAccount", true),
          new Kind("v1", "ConfigMap", true),
          new Kind("v1", "Service", true),
          new Kind("node.k8s.io/v1", "RuntimeClass", false),
          new Kind("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", false, DRA_API),
          new Kind(
              "admissionregistration.k8s.io/v1",
              "ValidatingAdmissionPolicyBinding",
              false,
              DRA_API),
          deviceClass(ResourceApiVersion.V1),
          deviceClass(ResourceApiVersion.V1BETA2),
          deviceClass(ResourceApiVersion.V1BETA1),
          new Kind(MONITORING_API_VERSION, SERVICE_MONITOR, true, SERVICE_MONITOR),
          new Kind(MONITORING_API_VERSION, PROMETHEUS_RULE, true, PROMETHEUS_RULE),
          new Kind(OpenShift.SCC_API_VERSION, OpenShift.SCC_KIND, false, OpenShift.SECURITY_GROUP));

  private static Kind deviceClass(ResourceApiVersion v) {
    return new Kind(v.apiVersion(), "DeviceClass", false, v.apiVersion());
  }

  /**
   * The optional APIs a server serves, as {@link Kind#requires} names them: the Prometheus
   * operator's kinds whose CRD exists, DRA's API group and version when it has one, and OpenShift's
   * security API on OpenShift.
   */
  public static Set<String> served(Set<String> monitoringKinds, ResourceApiVersion resourceApi) {
    return served(monitoringKinds, resourceApi, false);
  }

  /** The same on OpenShift (true): with its SecurityContextConstraints API. */
  public static Set<String> served(
      Set<String> monitoringKinds, ResourceApiVersion resourceApi, boolean openShift) {
    Set<String> out = new java.util.HashSet<>(monitoringKinds);
    if (openShift) {
      out.add(OpenShift.SECURITY_GROUP);
    }
    if (resourceApi != null) {
      out.add(DRA_API);
      out.add(resourceApi.apiVersion());
    }
    return Set.copyOf(out);
  }

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final ObjectMapper SORTED =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private ManagedObjects() {}

  /**
   * Makes a rendered object the operator's: namespace (for namespaced kinds without one), the
   * ownership label and, last, the hash annotation. Returns the same object.
   */
  public static <T extends HasMetadata> T stamp(T object, String operand, String namespace) {
    if (isNamespaced(object) && object.getMetadata().getNamespace() == null) {
      object.getMetadata().setNamespace(namespace);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (object.getMetadata().getLabels() != null) {
      labels.putAll(object.getMetadata().getLabels());
    }
    labels.put(OPERAND_LABEL, operand);
    object.getMetadata().setLabels(labels);
    String hash = hash(object);
    Map<String, String> annotations = new LinkedHashMap<>();
    if (object.getMetadata().getAnnotations() != null) {
      annotations.putAll(object.getMetadata().getAnnotations());
    }
    annotations.put(HASH_ANNOTATION, hash);
    object.getMetadata().setAnnotations(annotations);
    return object;
  }

  /**
   * Hex SHA-256 (first 32 characters) of the object without status, owner references and the hash
   * annotation; map keys are sorted first, so the order labels or env were added in does not
   * matter.
   */
  @SuppressWarnings("unchecked")
  public static String hash(HasMetadata object) {
    Map<String, Object> tree = new LinkedHashMap<>(SERIALIZATION.convertValue(object, Map.class));
    tree.remove("status");
    if (tree.get("metadata") instanceof Map<?, ?> m) {
      Map<String, Object> meta = new LinkedHashMap<>((Map<String, Object>) m);
      meta.remove("ownerReferences");
      if (meta.get("annotations") instanceof Map<?, ?> a) {
        Map<String, Object> annotations = new LinkedHashMap<>((Map<String, Object>) a);
        annotations.remove(HASH_ANNOTATION);
        if (annotations.isEmpty()) {
          meta.remove("annotations");
        } else {
          meta.put("annotations", annotations);
        }
      }
      tree.put("metadata", meta);
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(SORTED.writeValueAsBytes(tree));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException | JsonProcessingException e) {
      throw new IllegalStateException("cannot hash " + object.getKind(), e);
    }
  }

  /** The hash recorded on an object, or null. */
  public static String recordedHash(HasMetadata object) {
    Map<String, String> a = object == null ? null : object.getMetadata().getAnnotations();
    return a == null ? null : a.get(HASH_ANNOTATION);
  }

  /** The operand a live object belongs to, or null when the operator does not own it. */
  public static String operandOf(HasMetadata object) {
    Map<String, String> l = object == null ? null : object.getMetadata().getLabels();
    return l == null ? null : l.get(OPERAND_LABEL);
  }

  /** Whether a live object is already what {@code desired} renders (same recorded hash). */
  public static boolean upToDate(HasMetadata desired, HasMetadata live) {
    String want = recordedHash(desired);
    return live != null && want != null && want.equals(recordedHash(live));
  }

  /** Whether a live object's controller reference is the one given. */
  public static boolean ownedBy(HasMetadata live, OwnerReference owner) {
    List<OwnerReference> refs = live.getMetadata().getOwnerReferences();
    return refs != null
        && refs.stream()
            .anyMatch(
                r ->
                    Boolean.TRUE.equals(r.getController())
                        && owner.getUid().equals(r.getUid())
                        && owner.getKind().equals(r.getKind()));
  }

  /** Whether an object lives in a namespace (by the kind table for generic objects). */
  public static boolean isNamespaced(HasMetadata o) {
    if (o instanceof GenericKubernetesResource) {
      return KINDS.stream()
          .filter(k -> k.kind().equals(o.getKind()))
          .findFirst()
          .map(Kind::namespaced)
          .orElse(true);
    }
    return o instanceof Namespaced;
  }

  /** Whether the object belongs to the Prometheus operator's API (needs its CRD). */
  public static boolean isMonitoring(HasMetadata o) {
    return o.getApiVersion() != null && o.getApiVersion().startsWith("monitoring.coreos.com/");
  }

  /**
   * Whether the API server serves a kind: always for kinds every supported server has; for the
   * others (the Prometheus operator's, DRA's), when what they require is among {@code served}
   * ({@link #served}).
   */
  public static boolean present(String apiVersion, String kind, Set<String> served) {
    if (apiVersion == null) {
      return true;
    }
    return KINDS.stream()
        .filter(k -> k.apiVersion().equals(apiVersion) && k.kind().equals(kind))
        .findFirst()
        .map(k -> k.requires() == null || served.contains(k.requires()))
        .orElse(!apiVersion.startsWith("monitoring.coreos.com/") || served.contains(kind));
  }

  /**
   * Every object of the operator's kinds that carries the ownership label: namespaced kinds in the
   * operator namespace, cluster-scoped ones anywhere; optional kinds only where served ({@link
   * #served}).
   */
  public static List<GenericKubernetesResource> list(
      KubernetesClient client, String namespace, Set<String> served) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (Kind kind : KINDS) {
      if (!present(kind.apiVersion(), kind.kind(), served)) {
        continue;
      }
      var resources = client.genericKubernetesResources(kind.apiVersion(), kind.kind());
      var selected =
          kind.namespaced()
              ? resources.inNamespace(namespace).withLabel(OPERAND_LABEL)
              : resources.withLabel(OPERAND_LABEL);
      for (GenericKubernetesResource item : selected.list().getItems()) {
        // Items of a list carry no apiVersion/kind of their own on some servers.
        item.setApiVersion(kind.apiVersion());
        item.setKind(kind.kind());
        out.add(item);
      }
    }
    return out;
  }
}
