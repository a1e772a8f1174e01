package io.gpuoperator.operator.reconciler;

import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.operator.config.OperatorConfig;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Upgrades the drivers of NVIDIADriver resources while no ClusterPolicy exists, as NVIDIA's v26.7
 * does for resources on their own: the {@link DriverUpgradeReconciler}'s pass (which that
 * reconciler runs itself while a ClusterPolicy exists, its primary), with each resource's
 * upgradePolicy. The pass is one work item for the cluster, so only the first live resource by name
 * runs it; a resource created, changed or deleted reconciles them all.
 */
public class NvidiaDriverUpgradeReconciler implements Reconciler<NVIDIADriver> {
  static final String POLICIES = "nvd-upgrade-policies";

  private final DriverUpgradeReconciler upgrade;
  private final OperatorConfig config;

  private volatile UpgradeCaches<NVIDIADriver> caches;
  private volatile InformerEventSource<ClusterPolicy, NVIDIADriver> policies;

  /**
   * @param upgrade the reconciler whose pass this one runs (one pass at a time between them)
   */
  public NvidiaDriverUpgradeReconciler(DriverUpgradeReconciler upgrade, OperatorConfig config) {
    this.upgrade = upgrade;
    this.config = config;
  }

  @Override
  public List<EventSource<?, NVIDIADriver>> prepareEventSources(
      EventSourceContext<NVIDIADriver> context) {
    caches = UpgradeCaches.watch(context, config.namespace(), upgrade.sharedNodes());
    // A policy appearing hands the upgrade to its reconciler; one going away hands it back.
    policies =
        Watch.of(ClusterPolicy.class, POLICIES, context).onUpdateWhen(Watch::never).allPrimaries();
    List<EventSource<?, NVIDIADriver>> out = new ArrayList<>(caches.sources());
    out.add(policies);
    return out;
  }

  @Override
  public UpdateControl<NVIDIADriver> reconcile(NVIDIADriver driver, Context<NVIDIADriver> ctx) {
    if (policies.list().findAny().isPresent()) {
      return UpdateControl.noUpdate();
    }
    Optional<String> first =
        caches
            .drivers()
            .list()
            .filter(d -> d.getMetadata().getDeletionTimestamp() == null)
            .map(d -> d.getMetadata().getName())
            .min(Comparator.naturalOrder());
    if (!first.equals(Optional.of(driver.getMetadata().getName()))) {
      return UpdateControl.noUpdate();
    }
    Duration recheck = upgrade.pass(null, caches);
    UpdateControl<NVIDIADriver> control = UpdateControl.noUpdate();
    return recheck == null ? control : control.rescheduleAfter(recheck);
  }
}
