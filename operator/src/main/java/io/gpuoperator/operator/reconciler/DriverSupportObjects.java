package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.operator.operand.ManagedObjects;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The objects every NVIDIADriver DaemonSet runs with besides itself (the driver's service account
 * and startup-probe ConfigMap; its RBAC ships with the chart): one set in the operator namespace,
 * the one a ClusterPolicy keeps with {@code useNvidiaDriverCRD}. Every NVIDIADriver is an owner of
 * each (not the controller), so the garbage collector removes them with the last resource, and
 * keeps them when a ClusterPolicy that also owned them is deleted. Without a ClusterPolicy their
 * content is written here too; with one, the policy writes it and this class only adds the owners,
 * with a field manager of its own, so neither write takes the other's fields away.
 */
final class DriverSupportObjects {
  private static final Logger LOG = LoggerFactory.getLogger(DriverSupportObjects.class);

  /** Writes the objects' content when no ClusterPolicy does. */
  static final String FIELD_MANAGER = "gpu-operator-nvidiadriver";

  /** Writes only the NVIDIADriver owner references (never any other field). */
  static final String OWNERS_FIELD_MANAGER = "gpu-operator-nvidiadriver-owners";

  private final KubernetesClient client;

  DriverSupportObjects(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Makes every rendered object carry an owner reference to each driver, and, with {@code
   * writeContent}, the rendered content; writes nothing when the live object already has both.
   *
   * @param drivers the NVIDIADriver resources that exist (those being deleted are left out)
   */
  void keep(List<HasMetadata> rendered, List<NVIDIADriver> drivers, boolean writeContent) {
    List<OwnerReference> owners =
        drivers.stream()
            .filter(d -> d.getMetadata().getDeletionTimestamp() == null)
            .sorted(Comparator.comparing(d -> d.getMetadata().getName()))
            .map(DriverSupportObjects::owner)
            .toList();
    if (owners.isEmpty()) {
      return;
    }
    for (HasMetadata object : rendered) {
      HasMetadata live = live(object);
      boolean ownersMissing = live != null && !hasOwners(live, owners);
      if (writeContent && (live == null || !ManagedObjects.upToDate(object, live))) {
        HasMetadata desired = Serialization.clone(object);
        desired.getMetadata().setOwnerReferences(owners);
        log(live == null ? "creating" : "updating", desired);
        apply(desired, FIELD_MANAGER);
      } else if (ownersMissing) {
        log("adding NVIDIADriver owners to", object);
        apply(ownersOnly(object, owners), OWNERS_FIELD_MANAGER);
      }
    }
  }

  private static OwnerReference owner(NVIDIADriver d) {
    return new OwnerReferenceBuilder()
        .withApiVersion(d.getApiVersion())
        .withKind(d.getKind())
        .withName(d.getMetadata().getName())
        .withUid(d.getMetadata().getUid())
        .build();
  }

  private static boolean hasOwners(HasMetadata live, List<OwnerReference> owners) {
    List<OwnerReference> refs = live.getMetadata().getOwnerReferences();
    Set<String> uids =
        refs == null
            ? Set.of()
            : refs.stream().map(OwnerReference::getUid).collect(Collectors.toSet());
    return owners.stream().allMatch(o -> uids.contains(o.getUid()));
  }

  /** Only what identifies the object, and the owners: the owners manager holds no other field. */
  private static GenericKubernetesResource ownersOnly(
      HasMetadata object, List<OwnerReference> owners) {
    GenericKubernetesResource g = new GenericKubernetesResource();
    g.setApiVersion(object.getApiVersion());
    g.setKind(object.getKind());
    g.setMetadata(
        new ObjectMetaBuilder()
            .withName(object.getMetadata().getName())
            .withNamespace(object.getMetadata().getNamespace())
            .withOwnerReferences(owners)
            .build());
    return g;
  }

  private void apply(HasMetadata desired, String manager) {
    client.resource(desired).fieldManager(manager).forceConflicts().serverSideApply();
  }

  /** The object as the server has it, or null (the client's get() answers null for a 404). */
  private HasMetadata live(HasMetadata object) {
    return client.resource(object).get();
  }

  private static void log(String what, HasMetadata o) {
    LOG.info("{} {}", what, ObjectKey.of(o));
  }
}
