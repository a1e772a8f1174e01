package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import io.gpuoperator.sim.kubelet.dra.KubeletDraManager;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Runs the kubelet side of Dynamic Resource Allocation ({@link KubeletDraManager}) as part of a
 * simulated kubelet: its plugin watcher starts and stops with the kubelet (a restarted kubelet
 * registers the plugins again), pods' claims are prepared before their containers start and
 * unprepared after they stopped, and the prepared devices show in the node's pod-resources.
 */
public final class DraSupport implements PodPreparer, KubeletLifecycle {
  private final KubeletDraManager manager;

  public DraSupport(KubeletDraManager manager) {
    this.manager = manager;
  }

  /** A DRA manager for the node, reading claims with the node's own client. */
  public static DraSupport forNode(NodeDescription node, NodeDirs dirs, KubernetesClient client) {
    return new DraSupport(new KubeletDraManager(node.name(), dirs.kubeletDir(), client));
  }

  public KubeletDraManager manager() {
    return manager;
  }

  /**
   * Adds this to a kubelet's builder, as a pod preparer and lifecycle listener; the device
   * manager's pod-resources server then lists the prepared claims too.
   */
  public SimulatedKubelet.Builder attach(
      SimulatedKubelet.Builder builder, KubeletDeviceManager devices) {
    if (devices != null) {
      devices.dynamicResources(manager);
    }
    return builder.preparer(this).lifecycle(this);
  }

  @Override
  public String prepare(Pod pod) {
    return manager.prepare(pod);
  }

  @Override
  public void unprepare(Pod pod) {
    manager.unprepare(pod);
  }

  @Override
  public void started(boolean restart) {
    try {
      manager.start();
    } catch (IOException e) {
      throw new UncheckedIOException("DRA plugin watcher: " + e.getMessage(), e);
    }
  }

  @Override
  public void killed() {
    manager.stop();
  }

  @Override
  public void closed() {
    manager.close();
  }
}
