package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a simulated kubelet gives the pods of its node and takes back: admission (extended resources
 * against allocatable, then every {@link PodAdmitHandler}), resource preparation ({@link
 * PodPreparer}s, DRA claims), and the release of both when a pod is gone.
 */
final class PodAdmission {
  private static final Logger LOG = LoggerFactory.getLogger(PodAdmission.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final NodeCache nodeCache;
  private final List<PodAdmitHandler> admitHandlers;
  private final List<PodPreparer> preparers;
  private final Set<String> released = ConcurrentHashMap.newKeySet();
  private final Map<String, Pod> admitted = new ConcurrentHashMap<>();

  /** Serialises admissions (two pods never both get the last GPU). */
  private final Object admitLock = new Object();

  /**
   * @param nodeCache the shared watch of every Node, or null to GET the node
   */
  PodAdmission(
      KubernetesClient client,
      String nodeName,
      NodeCache nodeCache,
      List<PodAdmitHandler> admitHandlers,
      List<PodPreparer> preparers) {
    this.client = client;
    this.nodeName = nodeName;
    this.nodeCache = nodeCache;
    this.admitHandlers = List.copyOf(admitHandlers);
    this.preparers = List.copyOf(preparers);
  }

  private String nodeName() {
    return nodeName;
  }

  /**
   * Admits a pod like the kubelet: extended resources must fit the node's allocatable minus what
   * admitted pods hold, then every handler must accept it. Serialised, so two pods never both get
   * the last GPU.
   */
  PodAdmitHandler.Refusal admit(Pod pod) {
    // Its own lock, not the kubelet's: a read that hangs on the API server must not keep kill()
    // (Ctrl-C) waiting; kill() interrupts the pod's pass instead.
    synchronized (admitLock) {
      return admitLocked(pod);
    }
  }

  private PodAdmitHandler.Refusal admitLocked(Pod pod) {
    // The shared cache first (no request per pod); a refusal is confirmed with a fresh read, as
    // the cache may not have heard of the capacity a device plugin just registered.
    PodAdmitHandler.Refusal refusal =
        nodeCache == null ? null : fit(pod, nodeCache.get(nodeName()));
    if (nodeCache == null || refusal != null) {
      refusal = fit(pod, client.nodes().withName(nodeName()).get());
    }
    if (refusal != null) {
      return refusal;
    }
    for (PodAdmitHandler h : admitHandlers) {
      refusal = h.admit(pod);
      if (refusal != null) {
        return refusal;
      }
    }
    admitted.put(pod.getMetadata().getUid(), pod);
    return null;
  }

  private PodAdmitHandler.Refusal fit(Pod pod, Node node) {
    Map<String, Quantity> allocatable =
        node == null || node.getStatus() == null ? Map.of() : node.getStatus().getAllocatable();
    return ResourceFit.check(pod, allocatable, admitted.values());
  }

  /**
   * Prepares the pod's resources (DRA claims) through every preparer; null when all are ready, else
   * the first reason why not yet.
   */
  String prepare(Pod pod) {
    for (PodPreparer p : preparers) {
      String why = p.prepare(pod);
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  /** Releases what admission handlers and preparers gave the pod, once. */
  void podGone(Pod pod) {
    synchronized (admitLock) {
      admitted.remove(pod.getMetadata().getUid());
    }
    if (released.add(pod.getMetadata().getUid())) {
      releaseEach(preparers, p -> p.unprepare(pod), "unprepare", pod);
      releaseEach(admitHandlers, h -> h.podRemoved(pod), "release", pod);
    }
  }

  /** Runs {@code release} on each; one that throws is logged and does not stop the others. */
  private <T> void releaseEach(List<T> each, Consumer<T> release, String what, Pod pod) {
    for (T t : each) {
      try {
        release.accept(t);
      } catch (RuntimeException e) {
        LOG.warn(
            "node {}: {} of pod {} failed: {}",
            nodeName(),
            what,
            pod.getMetadata().getName(),
            e.toString());
      }
    }
  }
}
