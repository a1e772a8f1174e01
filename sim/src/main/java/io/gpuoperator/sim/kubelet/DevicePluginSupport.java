package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpuoperator.sim.kubelet.deviceplugin.Admission;
import io.gpuoperator.sim.kubelet.deviceplugin.KubeletDeviceManager;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Runs the kubelet side of the device-plugin and pod-resources APIs ({@link KubeletDeviceManager})
 * as part of a simulated kubelet: started with it, restarted with it (a new {@code kubelet.sock},
 * so plugins register again), allocating devices when it admits a pod and releasing them when the
 * pod is gone.
 */
public final class DevicePluginSupport implements PodAdmitHandler, KubeletLifecycle {
  private final KubeletDeviceManager devices;

  public DevicePluginSupport(KubeletDeviceManager devices) {
    this.devices = devices;
  }

  /** A device manager for the node, on its own socket directories, publishing with its client. */
  public static DevicePluginSupport forNode(
      NodeDescription node, NodeDirs dirs, io.fabric8.kubernetes.client.KubernetesClient client) {
    return new DevicePluginSupport(
        new KubeletDeviceManager(node.name(), dirs.kubeletDir(), client));
  }

  public KubeletDeviceManager devices() {
    return devices;
  }

  /** Adds this to a kubelet's builder, as its admission handler and lifecycle listener. */
  public SimulatedKubelet.Builder attach(SimulatedKubelet.Builder builder) {
    return builder.admitHandler(this).lifecycle(this);
  }

  @Override
  public Refusal admit(Pod pod) {
    Admission a = devices.admit(pod);
    return a.admitted() ? null : new Refusal(a.reason(), a.message());
  }

  @Override
  public void podRemoved(Pod pod) {
    devices.release(pod.getMetadata().getUid());
  }

  @Override
  public void started(boolean restart) {
    try {
      if (restart) {
        devices.restart();
      } else {
        devices.start();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "node " + devices.nodeName() + ": device-plugin sockets: " + e.getMessage(), e);
    }
  }

  @Override
  public void killed() {
    devices.killed();
  }

  @Override
  public void closing() {
    devices.closing();
  }

  @Override
  public void closed() {
    devices.close();
  }
}
