package io.gpuoperator.sim.kubelet.deviceplugin;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.PatchTarget;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginConstants;
import io.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.sim.kubelet.DraExtendedResources;
import io.gpuoperator.sim.kubelet.KubeletThreads;
import io.gpuoperator.sim.kubelet.SerialLane;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's side of the device-plugin API for one node, reusable by the simulator (one per
 * simulated node): the {@code Registration} server on {@code <kubeletDir>/device-plugins/
 * kubelet.sock}; for each registered resource a {@code ListAndWatch} stream whose healthy devices
 * become the Node's allocatable (all devices its capacity, as the kubelet does); device allocation
 * for pods bound to the node ({@code GetPreferredAllocation} when offered, then {@code Allocate});
 * and the pod-resources v1 server on {@code <kubeletDir>/pod-resources/kubelet.sock}.
 *
 * <p>Pods reach it either through {@link #watchPods()} (an informer on the node's pods) or from a
 * caller that drives the pod lifecycle itself through {@link #admit(Pod)} and {@link
 * #release(String)}. Without a client it publishes nothing and fails no pod: it then only answers
 * over its sockets and through its methods.
 */
public final class KubeletDeviceManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeletDeviceManager.class);

  private final String nodeName;
  private final Path pluginDir;
  private final Path podResourcesSocket;
  private final KubernetesClient client;
  private final Object lock = new Object();
  private final Map<String, PluginEndpoint> endpoints = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> registrations = new ConcurrentHashMap<>();
  private final Map<String, PodAssignment> assignments = new LinkedHashMap<>();
  private final Set<String> failedPods = ConcurrentHashMap.newKeySet();
  private final NodeResourceStatus status;
  private volatile boolean closing;
  private final SerialLane connector;
  private Server registrationServer;
  private Server podResourcesServer;
  private PodWatch podWatch;
  private volatile DynamicResourceSource dynamicResources = List::of;
  private volatile boolean kubelet136Handover;

  /**
   * @param nodeName the Node whose status gets the resources
   * @param kubeletDir the kubelet's root (like {@code /var/lib/kubelet}): sockets go into its
   *     {@code device-plugins/} and {@code pod-resources/} subdirectories
   * @param client the API client for Node status and failed pods; null for none
   */
  public KubeletDeviceManager(String nodeName, Path kubeletDir, KubernetesClient client) {
    this.nodeName = nodeName;
    this.pluginDir = kubeletDir.resolve(DevicePluginConstants.DEVICE_PLUGINS_DIR);
    this.podResourcesSocket =
        kubeletDir
            .resolve(DevicePluginConstants.POD_RESOURCES_DIR)
            .resolve(DevicePluginConstants.KUBELET_SOCKET_NAME);
    this.client = client;
    this.status = new NodeResourceStatus(client, nodeName, this::resourceCounts, () -> closing);
    // The node's plugin connections one at a time, off the gRPC thread that took the Register
    // call, on the pool every node shares: most of the time a simulated node has none.
    this.connector = new SerialLane("kubelet-dm-connect-" + nodeName, KubeletThreads.devices());
  }

  /**
   * Where pod-resources gets the devices prepared through DRA (the node's DRA manager); none by
   * default.
   */
  public KubeletDeviceManager dynamicResources(DynamicResourceSource source) {
    this.dynamicResources = source;
    return this;
  }

  /**
   * Hands a resource over from one plugin to the next as the real kubelet (1.36) does, instead of
   * cleanly: a second registration of a resource leaves the first plugin's stream open, and when
   * that stream ends the kubelet disconnects whichever plugin is registered for the resource then
   * (its {@code runClient} looks the client up by resource name), so the newer plugin is cut off as
   * the older one stops. By default the first plugin is stopped at the second registration.
   */
  public KubeletDeviceManager kubelet136Handover(boolean on) {
    this.kubelet136Handover = on;
    return this;
  }

  DynamicResourceSource dynamicResources() {
    return dynamicResources;
  }

  /** Starts the registration and pod-resources servers. */
  public KubeletDeviceManager start() throws IOException {
    Files.createDirectories(pluginDir);
    podResourcesServer = UnixSockets.serve(podResourcesSocket, new PodResourcesService(this));
    startRegistration();
    return this;
  }

  private void startRegistration() throws IOException {
    registrationServer =
        UnixSockets.serve(kubeletSocket(), new RegistrationService(this::onRegisterRequest));
    LOG.info("node/{}: device-plugin registration serving on {}", nodeName, kubeletSocket());
  }

  /**
   * Behaves like a crashed kubelet: its registration server stops accepting (the socket file stays,
   * as a dead process leaves it). Waited for, so that no plugin registers with a kubelet that is
   * down and is counted twice once it is back.
   */
  public void killed() {
    stopRegistration();
  }

  private void stopRegistration() {
    Server server = registrationServer;
    if (server == null) {
      return;
    }
    registrationServer = null;
    server.shutdownNow();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("node/{}: registration server still running after 5 s", nodeName);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Behaves like a restarted kubelet: stops the registration server, forgets every plugin
   * connection, empties the plugin directory (the kubelet deletes the sockets it finds there) and
   * creates {@code kubelet.sock} again. Assignments survive, as they do in the kubelet's
   * checkpoint. Plugins must notice and register again.
   */
  public void restart() throws IOException {
    stopRegistration();
    synchronized (lock) {
      endpoints.values().forEach(PluginEndpoint::stop);
      endpoints.clear();
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(pluginDir)) {
      for (Path f : files) {
        if (!Files.isDirectory(f)) {
          Files.deleteIfExists(f);
        }
      }
    }
    publishStatus();
    startRegistration();
  }

  /** Starts an informer on the pods bound to this node, admitting and releasing them. */
  public KubeletDeviceManager watchPods() {
    if (client == null) {
      throw new IllegalStateException("node/" + nodeName + ": watching pods needs a client");
    }
    podWatch = new PodWatch(client, this);
    return this;
  }

  /** Whether the pod was refused admission (and not released since): not tried again. */
  boolean refused(String podUid) {
    return failedPods.contains(podUid);
  }

  /**
   * Allocates the devices a pod requests from registered resources, container by container (init
   * containers first; their devices may be reused by the containers after them), as the kubelet
   * does before starting it. Idempotent: a pod already admitted gets its assignment back. On
   * refusal the assignment is rolled back and, with a client, the pod is failed with the reason
   * {@code UnexpectedAdmissionError} and the plugin's error in its message.
   */
  public Admission admit(Pod pod) {
    String uid = pod.getMetadata().getUid();
    synchronized (lock) {
      PodAssignment existing = assignments.get(uid);
      if (existing != null) {
        return Admission.admitted(existing);
      }
    }
    List<ContainerAssignment> done = new ArrayList<>();
    String failure = null;
    // Init containers run one after another, so each may reuse the devices of the ones before,
    // and the app containers may reuse theirs too (the kubelet's reusable devices).
    List<ContainerAssignment> appOnly = new ArrayList<>();
    List<Container> init =
        pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
    List<Container> all = new ArrayList<>(init);
    all.addAll(pod.getSpec().getContainers());
    for (int i = 0; i < all.size() && failure == null; i++) {
      Container c = all.get(i);
      boolean isInit = i < init.size();
      for (Map.Entry<String, Integer> request : deviceRequests(pod, c).entrySet()) {
        try {
          ContainerAssignment a =
              allocate(
                  c.getName(),
                  isInit,
                  request.getKey(),
                  request.getValue(),
                  isInit ? List.of() : appOnly);
          done.add(a);
          if (!isInit) {
            appOnly.add(a);
          }
        } catch (DeviceAllocation.Refused e) {
          failure = e.getMessage();
          break;
        }
      }
    }
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    if (failure != null) {
      failedPods.add(uid);
      LOG.warn("pod/{}/{}: {}", ns, name, failure);
      failPod(ns, name, failure);
      return Admission.failed(failure);
    }
    PodAssignment assignment = new PodAssignment(uid, ns, name, done);
    synchronized (lock) {
      if (!done.isEmpty()) {
        assignments.put(uid, assignment);
      }
    }
    if (!done.isEmpty()) {
      LOG.info("pod/{}/{}: assigned {}", ns, name, summary(done));
    }
    return Admission.admitted(assignment);
  }

  /**
   * Allocates from the healthy devices no pod holds, nor an earlier container of this pod that
   * keeps its devices ({@code pending}).
   */
  private ContainerAssignment allocate(
      String container,
      boolean initContainer,
      String resource,
      int count,
      List<ContainerAssignment> pending)
      throws DeviceAllocation.Refused {
    PluginEndpoint endpoint;
    List<String> available;
    synchronized (lock) {
      endpoint = endpoints.get(resource);
      if (endpoint == null) {
        throw new DeviceAllocation.Refused(
            "Allocate failed due to cannot allocate unregistered device " + resource);
      }
      Set<String> used = allocatedIds(resource);
      pending.stream()
          .filter(a -> a.resource().equals(resource))
          .forEach(a -> used.addAll(a.deviceIds()));
      available = new ArrayList<>(endpoint.healthyIds());
      available.removeAll(used);
    }
    return DeviceAllocation.allocate(endpoint, available, container, initContainer, count);
  }

  /** Frees the devices assigned to a pod (deleted or terminated). */
  public void release(String podUid) {
    PodAssignment removed;
    synchronized (lock) {
      removed = assignments.remove(podUid);
    }
    failedPods.remove(podUid);
    if (removed != null) {
      LOG.info(
          "pod/{}/{}: released {}",
          removed.namespace(),
          removed.name(),
          summary(removed.containers()));
    }
  }

  /** The container's device-plugin resources, without those the scheduler served through DRA. */
  private Map<String, Integer> deviceRequests(Pod pod, Container c) {
    Map<String, Integer> out = new TreeMap<>();
    if (c.getResources() == null) {
      return out;
    }
    Map<String, Quantity> wanted = new HashMap<>();
    if (c.getResources().getRequests() != null) {
      wanted.putAll(c.getResources().getRequests());
    }
    if (c.getResources().getLimits() != null) {
      // Extended resources are set by limits; requests, when given, must be equal.
      wanted.putAll(c.getResources().getLimits());
    }
    synchronized (lock) {
      wanted.forEach(
          (resource, quantity) -> {
            if ((endpoints.containsKey(resource) || registrations.containsKey(resource))
                && !DraExtendedResources.backedByDra(pod, c.getName(), resource)) {
              int n = quantity.getNumericalAmount().intValue();
              if (n > 0) {
                out.put(resource, n);
              }
            }
          });
    }
    return out;
  }

  private Set<String> allocatedIds(String resource) {
    Set<String> used = new HashSet<>();
    for (PodAssignment a : assignments.values()) {
      used.addAll(a.deviceIds(resource));
    }
    return used;
  }

  private void failPod(String namespace, String name, String message) {
    if (client == null) {
      return;
    }
    String body =
        Serialization.asJson(
            Map.of(
                "status",
                Map.of(
                    "phase",
                    "Failed",
                    "reason",
                    Admission.UNEXPECTED_ADMISSION_ERROR,
                    "message",
                    message)));
    try {
      client
          .pods()
          .inNamespace(namespace)
          .resource(PatchTarget.of(Pod::new, namespace, name))
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), body);
    } catch (KubernetesClientException e) {
      LOG.warn("pod/{}/{}: cannot fail the pod: {}", namespace, name, e.getMessage());
    }
  }

  private void onRegisterRequest(RegisterRequest request) {
    connector.execute(() -> connect(request));
  }

  private void connect(RegisterRequest request) {
    String resource = request.getResourceName();
    PluginEndpoint endpoint =
        new PluginEndpoint(
            resource, pluginDir.resolve(request.getEndpoint()), request.getOptions());
    PluginEndpoint old;
    synchronized (lock) {
      endpoint.inherit(endpoints.get(resource));
      old = endpoints.put(resource, endpoint);
    }
    if (old != null && !kubelet136Handover) {
      old.stop();
    }
    registrations.computeIfAbsent(resource, r -> new AtomicInteger()).incrementAndGet();
    LOG.info(
        "node/{}: plugin registered {} at {} (preferred allocation: {})",
        nodeName,
        resource,
        endpoint.socket(),
        request.getOptions().getGetPreferredAllocationAvailable());
    endpoint.start(e -> publishStatus(), this::onDisconnect);
  }

  private void onDisconnect(PluginEndpoint endpoint) {
    if (closing) {
      // The node is shutting down: its plugins stopping is expected, and nothing is published.
      LOG.debug("node/{}: ListAndWatch of {} ended at shutdown", nodeName, endpoint.resource());
      return;
    }
    PluginEndpoint current;
    synchronized (lock) {
      current = endpoints.get(endpoint.resource());
    }
    if (current != null && current != endpoint) {
      LOG.warn(
          "node/{}: ListAndWatch of {} at {} ended; disconnecting the plugin registered now at {}"
              + " (as kubelet 1.36)",
          nodeName,
          endpoint.resource(),
          endpoint.socket(),
          current.socket());
      current.stop();
    } else {
      LOG.warn(
          "node/{}: ListAndWatch of {} ended; its devices are no longer allocatable",
          nodeName,
          endpoint.resource());
    }
    publishStatus();
  }

  private void publishStatus() {
    status.publish();
  }

  /** Every registered resource's device counts; a resource whose plugin is gone counts zero. */
  private Map<String, NodeResourceStatus.Count> resourceCounts() {
    Map<String, NodeResourceStatus.Count> counts = new TreeMap<>();
    synchronized (lock) {
      for (String resource : registrations.keySet()) {
        PluginEndpoint e = endpoints.get(resource);
        int total = e == null ? 0 : e.devices().size();
        int healthy = e == null ? 0 : e.healthyIds().size();
        counts.put(resource, new NodeResourceStatus.Count(total, healthy));
      }
    }
    return counts;
  }

  /** The registration socket. */
  public Path kubeletSocket() {
    return pluginDir.resolve(DevicePluginConstants.KUBELET_SOCKET_NAME);
  }

  /** The device-plugin directory. */
  public Path pluginDir() {
    return pluginDir;
  }

  /** The pod-resources socket. */
  public Path podResourcesSocket() {
    return podResourcesSocket;
  }

  /** The node this kubelet side serves. */
  public String nodeName() {
    return nodeName;
  }

  /** How many times a resource was registered (a re-registration counts again). */
  public int registrations(String resource) {
    AtomicInteger n = registrations.get(resource);
    return n == null ? 0 : n.get();
  }

  /** The resources with a connected plugin. */
  public Set<String> resources() {
    synchronized (lock) {
      Set<String> out = new LinkedHashSet<>();
      endpoints.forEach(
          (r, e) -> {
            if (e.connected()) {
              out.add(r);
            }
          });
      return out;
    }
  }

  /** The devices of a resource from its plugin's last ListAndWatch message, by ID. */
  public Map<String, Device> devices(String resource) {
    synchronized (lock) {
      PluginEndpoint e = endpoints.get(resource);
      return e == null ? Map.of() : e.devices();
    }
  }

  /** Healthy devices of every connected resource (the pod-resources "allocatable" answer). */
  public Map<String, List<Device>> allocatableDevices() {
    Map<String, List<Device>> out = new TreeMap<>();
    synchronized (lock) {
      endpoints.forEach(
          (resource, e) -> {
            List<Device> healthy = new ArrayList<>();
            for (String id : e.healthyIds()) {
              healthy.add(e.devices().get(id));
            }
            out.put(resource, healthy);
          });
    }
    return out;
  }

  /** The current assignments, in admission order. */
  public List<PodAssignment> assignments() {
    synchronized (lock) {
      return List.copyOf(assignments.values());
    }
  }

  /**
   * The node is shutting down (its containers are about to stop): plugins going away are expected
   * from now on and are neither warned about nor published.
   */
  public void closing() {
    closing = true;
  }

  @Override
  public void close() {
    closing = true;
    if (podWatch != null) {
      podWatch.close();
    }
    synchronized (lock) {
      endpoints.values().forEach(PluginEndpoint::stop);
      endpoints.clear();
    }
    if (registrationServer != null) {
      registrationServer.shutdownNow();
    }
    if (podResourcesServer != null) {
      podResourcesServer.shutdownNow();
    }
    connector.close();
    status.shutdown();
    // A stopped kubelet leaves no socket behind for plugins to dial.
    try {
      Files.deleteIfExists(kubeletSocket());
      Files.deleteIfExists(podResourcesSocket);
    } catch (IOException e) {
      LOG.warn("node/{}: cannot remove its sockets: {}", nodeName, e.getMessage());
    }
  }

  private static String summary(List<ContainerAssignment> containers) {
    StringBuilder s = new StringBuilder();
    for (ContainerAssignment c : containers) {
      if (s.length() > 0) {
        s.append("; ");
      }
      s.append(c.container()).append(' ').append(c.resource()).append('=').append(c.deviceIds());
    }
    return s.toString();
  }

  /** Threads that do not keep the JVM alive, named for the node and their job. */
  static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
