package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.WritableOperation;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.OperandNames;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the operands' objects to what the policy rendered, writing only what differs: an object
 * whose recorded hash equals the rendered one is left alone, so a pass that changes nothing makes
 * no write call. Objects of disabled operands, and objects an operand no longer renders, are
 * deleted; they are found through the ownership label ({@link ManagedObjects#OPERAND_LABEL}). A
 * DaemonSet written less than a settle window ago waits ({@link SettleWindow}); the pass says how
 * long, and the reconciler comes back then with whatever the policy says by that time.
 */
public final class OperandApplier {
  private static final Logger LOG = LoggerFactory.getLogger(OperandApplier.class);

  private final KubernetesClient client;
  private final String namespace;
  private final InformerEventSource<DaemonSet, ?> daemonSets;
  private final SettleWindow settle;

  /** What each operand consists of on the server, as far as this process knows (null: unknown). */
  private volatile Map<String, Set<ObjectKey>> inventory;

  public OperandApplier(
      KubernetesClient client, String namespace, InformerEventSource<DaemonSet, ?> daemonSets) {
    this(client, namespace, daemonSets, Duration.ZERO);
  }

  /**
   * @param settleWindow a changed DaemonSet is written at most once per this window (zero: at once)
   */
  public OperandApplier(
      KubernetesClient client,
      String namespace,
      InformerEventSource<DaemonSet, ?> daemonSets,
      Duration settleWindow) {
    this.client = client;
    this.namespace = namespace;
    this.daemonSets = daemonSets;
    this.settle = new SettleWindow(settleWindow);
  }

  /**
   * Result of one pass: how many objects were written and deleted, and how long until the first
   * DaemonSet held back by its settle window may be written ({@link Duration#ZERO}: none waits).
   */
  public record Result(int applied, int deleted, Duration settling) {
    /** Whether a DaemonSet waits for its settle window: the pass must run again then. */
    public boolean waiting() {
      return !settling.isZero();
    }
  }

  /**
   * Applies every enabled operand in order and deletes what disabled operands left behind.
   *
   * @param monitoringKinds the monitoring.coreos.com kinds whose CRD exists (objects of the others
   *     are skipped)
   */
  public Result sync(
      HasMetadata owner, List<RenderedOperand> operands, Set<String> monitoringKinds) {
    return sync(owner, operands, monitoringKinds, o -> false);
  }

  /**
   * As {@link #sync(HasMetadata, List, Set)}, leaving the rendered objects that {@code frozen}
   * accepts as they are on the server: not written, not created, not deleted (a driver DaemonSet
   * whose node pool the compatibility check refused).
   */
  public Result sync(
      HasMetadata owner,
      List<RenderedOperand> operands,
      Set<String> monitoringKinds,
      Predicate<HasMetadata> frozen) {
    Map<String, Set<ObjectKey>> known = inventory(monitoringKinds);
    int applied = 0;
    int deleted = 0;
    Duration settling = Duration.ZERO;
    for (RenderedOperand operand : operands) {
      Set<ObjectKey> wanted = new HashSet<>();
      if (operand.enabled()) {
        for (HasMetadata object : operand.objects()) {
          if (!ManagedObjects.present(object.getApiVersion(), object.getKind(), monitoringKinds)) {
            continue;
          }
          HasMetadata desired = prepare(owner, object);
          wanted.add(ObjectKey.of(desired));
          if (frozen.test(object)) {
            continue;
          }
          HasMetadata live = live(desired);
          if (!needsWrite(desired, live)) {
            continue;
          }
          ObjectKey key = ObjectKey.of(desired);
          Duration wait = live instanceof DaemonSet ? settle.waitFor(key) : Duration.ZERO;
          if (!wait.isZero()) {
            LOG.debug("{} changed again within its settle window; writing it in {}", key, wait);
            settling = settling.isZero() || wait.compareTo(settling) < 0 ? wait : settling;
            continue;
          }
          write(desired, live);
          settle.written(key);
          applied++;
        }
      }
      Set<ObjectKey> existing = known.getOrDefault(operand.name(), Set.of());
      for (ObjectKey key : existing) {
        if (!ManagedObjects.present(key.apiVersion(), key.kind(), monitoringKinds)) {
          continue; // the CRD is gone, and its objects with it
        }
        if (!wanted.contains(key)) {
          delete(owner, operand.name(), key, orphans(operand, key));
          settle.forget(key);
          deleted++;
        }
      }
      known.put(operand.name(), wanted);
    }
    return new Result(applied, deleted, settling);
  }

  /** Forgets what exists, so the next pass lists it again (after an error). */
  public void invalidate() {
    inventory = null;
  }

  private Map<String, Set<ObjectKey>> inventory(Set<String> monitoringKinds) {
    Map<String, Set<ObjectKey>> known = inventory;
    if (known != null) {
      return known;
    }
    known = new ConcurrentHashMap<>();
    for (HasMetadata item : ManagedObjects.list(client, namespace, monitoringKinds)) {
      known
          .computeIfAbsent(ManagedObjects.operandOf(item), k -> ConcurrentHashMap.newKeySet())
          .add(ObjectKey.of(item));
    }
    inventory = known;
    return known;
  }

  /**
   * The object as written: the rendered one (already stamped with ownership and hash by {@link
   * ManagedObjects#stamp}) plus the policy as its controller owner.
   */
  HasMetadata prepare(HasMetadata owner, HasMetadata rendered) {
    HasMetadata o = Serialization.clone(rendered);
    o.getMetadata().setOwnerReferences(List.of(ownerReference(owner)));
    return o;
  }

  static OwnerReference ownerReference(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * Whether an apply is needed: the object is missing, its recorded hash differs from the rendered
   * one (the same comparison {@code plan} makes), or another policy owns it (the policy was
   * recreated).
   */
  static boolean needsWrite(HasMetadata desired, HasMetadata live) {
    return !ManagedObjects.upToDate(desired, live)
        || !ManagedObjects.ownedBy(live, desired.getMetadata().getOwnerReferences().get(0));
  }

  private void write(HasMetadata desired, HasMetadata live) {
    LOG.info(
        "{} {} (hash {})",
        live == null ? "creating" : "updating",
        ObjectKey.of(desired),
        ManagedObjects.recordedHash(desired));
    HasMetadata written;
    try {
      written = write(client, desired, false);
    } catch (KubernetesClientException e) {
      ServerRejection rejected = ServerRejection.of(desired, e);
      throw rejected == null ? e : rejected;
    }
    if (written instanceof DaemonSet ds && daemonSets != null) {
      // The informer may not have seen our write yet; without this the next pass would write again.
      ResourceID id = ResourceID.fromResource(ds);
      if (live == null) {
        daemonSets.handleRecentResourceCreate(id, ds);
      } else {
        daemonSets.handleRecentResourceUpdate(id, ds, (DaemonSet) live);
      }
    }
  }

  /**
   * Writes an object as the operator does (server-side apply, its field manager, taking over
   * conflicting fields); with {@code dryRun} the server runs every check and stores nothing.
   */
  static HasMetadata write(KubernetesClient client, HasMetadata desired, boolean dryRun) {
    var resource = client.resource(desired);
    WritableOperation<HasMetadata> op = dryRun ? resource.dryRun() : resource;
    return op.fieldManager(ReconcilerKeys.FIELD_MANAGER).forceConflicts().serverSideApply();
  }

  /**
   * Dry-runs every object the enabled operands render, written as {@link #sync} writes it (without
   * the owner reference: the policy need not exist yet), and returns what the server refuses; the
   * server's checks are the ones the operator's writes would meet. Objects in a namespace that does
   * not exist are left out ({@code skipNamespaced}).
   */
  public static List<ServerRejection> dryRun(
      KubernetesClient client,
      List<RenderedOperand> operands,
      Set<String> monitoringKinds,
      boolean skipNamespaced) {
    List<ServerRejection> out = new java.util.ArrayList<>();
    for (RenderedOperand operand : operands) {
      if (!operand.enabled()) {
        continue;
      }
      for (HasMetadata object : operand.objects()) {
        if (!ManagedObjects.present(object.getApiVersion(), object.getKind(), monitoringKinds)
            || (skipNamespaced && object.getMetadata().getNamespace() != null)) {
          continue;
        }
        try {
          write(client, Serialization.clone(object), true);
        } catch (KubernetesClientException e) {
          ServerRejection rejected = ServerRejection.of(object, e);
          if (rejected == null) {
            throw e;
          }
          out.add(rejected);
        }
      }
    }
    return out;
  }

  private HasMetadata live(HasMetadata desired) {
    if (desired instanceof DaemonSet && daemonSets != null) {
      return daemonSets.get(ResourceID.fromResource(desired)).orElse(null);
    }
    // Null when the server has none: the client's get() answers null for a 404.
    return client.resource(desired).get();
  }

  /**
   * A driver DaemonSet that goes while the driver stays (renamed for a new node pool, or handed to
   * NVIDIADriver resources) leaves its pods running: deleting them would take every node's driver
   * away at once. The upgrade controller replaces them node by node, as orphans. A disabled
   * driver's DaemonSets take their pods with them.
   */
  private static boolean orphans(RenderedOperand operand, ObjectKey key) {
    return operand.enabled()
        && OperandNames.DRIVER.equals(operand.name())
        && "DaemonSet".equals(key.kind());
  }

  private void delete(HasMetadata owner, String operand, ObjectKey key, boolean orphan) {
    LOG.info(
        "deleting {} of operand {}{}",
        key,
        operand,
        orphan ? ", leaving its pods to the driver upgrade" : "");
    try {
      var resources = client.genericKubernetesResources(key.apiVersion(), key.kind());
      var one =
          key.namespace() == null
              ? resources.withName(key.name())
              : resources.inNamespace(key.namespace()).withName(key.name());
      if (orphan) {
        one.withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
      } else {
        one.delete();
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
