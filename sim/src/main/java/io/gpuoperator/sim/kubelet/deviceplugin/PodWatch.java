package io.gpuoperator.sim.kubelet.deviceplugin;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a {@link KubeletDeviceManager} from an informer on the pods bound to its node: a live pod
 * is admitted (a refused one is not tried again until released), a finished or deleting one is
 * released. Events are handled on one thread, in order, never on the informer's.
 */
final class PodWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PodWatch.class);

  private final KubeletDeviceManager manager;
  private final ExecutorService admitter;
  private final SharedIndexInformer<Pod> informer;

  PodWatch(KubernetesClient client, KubeletDeviceManager manager) {
    this.manager = manager;
    String nodeName = manager.nodeName();
    this.admitter =
        Executors.newSingleThreadExecutor(
            KubeletDeviceManager.daemon("kubelet-dm-admit-" + nodeName));
    this.informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", nodeName)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    admitter.execute(() -> onPod(pod));
                  }

                  @Override
                  public void onUpdate(Pod old, Pod pod) {
                    admitter.execute(() -> onPod(pod));
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknownFinalState) {
                    admitter.execute(() -> manager.release(pod.getMetadata().getUid()));
                  }
                },
                0);
  }

  private void onPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if ("Succeeded".equals(phase)
        || "Failed".equals(phase)
        || pod.getMetadata().getDeletionTimestamp() != null) {
      manager.release(uid);
      return;
    }
    if (!manager.refused(uid)) {
      try {
        manager.admit(pod);
      } catch (RuntimeException e) {
        LOG.warn(
            "pod/{}/{}: admission failed: {}",
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getName(),
            e.toString());
      }
    }
  }

  @Override
  public void close() {
    informer.close();
    admitter.shutdownNow();
  }
}
