package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.operator.labels.Labels;
import io.gpuoperator.operator.upgrade.UpgradeKeys;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;

/**
 * What a driver upgrade pass reads (nodes, driver pods, validator pods, driver ControllerRevisions
 * and DaemonSets, NVIDIADriver resources), all label-selected where they can be, as the event
 * sources of the controller that runs the pass: any change reconciles every primary, since the
 * limits are cluster-wide. Two controllers run the pass ({@link DriverUpgradeReconciler} with a
 * ClusterPolicy, {@link NvidiaDriverUpgradeReconciler} without one), each from its own watches.
 */
record UpgradeCaches<P extends HasMetadata>(
    SharedNodes.Events<P> nodes,
    InformerEventSource<Pod, P> driverPods,
    InformerEventSource<Pod, P> validators,
    InformerEventSource<ControllerRevision, P> revisions,
    InformerEventSource<DaemonSet, P> daemonSets,
    InformerEventSource<NVIDIADriver, P> drivers) {
  static final String NODES = "upgrade-nodes";
  static final String DRIVER_PODS = "driver-pods";
  static final String VALIDATORS = "validator-pods";
  static final String REVISIONS = "driver-revisions";
  static final String DAEMONSETS = "driver-daemonsets";
  static final String DRIVERS = "nvidia-drivers";

  /** The watches, in the operator namespace {@code namespace}. */
  static <P extends HasMetadata> UpgradeCaches<P> watch(
      EventSourceContext<P> context, String namespace, SharedNodes sharedNodes) {
    String driver = UpgradeKeys.COMPONENT + "=" + UpgradeKeys.DRIVER_COMPONENT;
    return new UpgradeCaches<>(
        sharedNodes.events(NODES, context, DriverUpgradeReconciler::nodeChanged),
        Watch.of(Pod.class, DRIVER_PODS, context).in(namespace).labelled(driver).allPrimaries(),
        Watch.of(Pod.class, VALIDATORS, context)
            .in(namespace)
            .labelled(Labels.APP + "=" + UpgradeKeys.VALIDATOR_APP)
            .allPrimaries(),
        Watch.of(ControllerRevision.class, REVISIONS, context)
            .in(namespace)
            .labelled(driver)
            .allPrimaries(),
        Watch.of(DaemonSet.class, DAEMONSETS, context)
            .in(namespace)
            .labelled(driver)
            .allPrimaries(),
        Watch.of(NVIDIADriver.class, DRIVERS, context)
            .onUpdateWhen(Watch::specChanged)
            .allPrimaries());
  }

  /** The event sources to register. */
  List<EventSource<?, P>> sources() {
    return List.of(nodes, driverPods, validators, revisions, daemonSets, drivers);
  }
}
