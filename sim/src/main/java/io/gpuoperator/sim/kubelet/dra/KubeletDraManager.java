package io.gpuoperator.sim.kubelet.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.kubelet.dra.DraConstants;
import io.gpuoperator.kubelet.dra.v1.Claim;
import io.gpuoperator.kubelet.dra.v1.Device;
import io.gpuoperator.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.gpuoperator.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.gpuoperator.kubelet.podresources.v1.CDIDevice;
import io.gpuoperator.kubelet.podresources.v1.ClaimResource;
import io.gpuoperator.kubelet.podresources.v1.DynamicResource;
import io.gpuoperator.sim.kubelet.DraExtendedResources;
import io.gpuoperator.sim.kubelet.KubeletThreads;
import io.gpuoperator.sim.kubelet.deviceplugin.DynamicResourceSource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's DRA manager for one simulated node, modelled on the kubelet's own ({@code
 * pkg/kubelet/cm/dra/manager.go}): before a pod's containers start it reads the pod's
 * ResourceClaims with the node's credential, checks that each is allocated and reserved for the
 * pod, and asks each driver's registered plugin to prepare the claims it has not prepared yet (a
 * claim shared by several pods is prepared once); after the pod's containers stopped it drops the
 * pod from its claims and unprepares each claim no pod uses any more (retried until the plugin
 * answers). The prepared devices and their CDI IDs are what pod-resources lists.
 */
public final class KubeletDraManager implements DynamicResourceSource, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeletDraManager.class);
  private static final long UNPREPARE_RETRY_SECONDS = 2;

  /** The key of the claim the scheduler made for DRA-served extended resources. */
  private static final String EXTENDED_RESOURCES = "";

  private final String nodeName;
  private final KubernetesClient client;
  private final DraPluginWatcher watcher;
  private final Map<String, ClaimInfo> claims = new LinkedHashMap<>();
  private final Map<String, PodClaims> pods = new LinkedHashMap<>();
  private final Set<ClaimInfo> pendingUnprepare = new LinkedHashSet<>();
  private ScheduledFuture<?> retry;
  private ResourceApiVersion version;

  /**
   * @param kubeletDir the kubelet's root directory stand-in; plugins register in its {@code
   *     plugins_registry/}
   * @param client the node's own client (the Node authorizer lets it read the claims of its pods)
   */
  public KubeletDraManager(String nodeName, Path kubeletDir, KubernetesClient client) {
    this.nodeName = nodeName;
    this.client = client;
    this.watcher =
        new DraPluginWatcher(nodeName, kubeletDir.resolve(DraConstants.PLUGINS_REGISTRY_DIR));
  }

  /** Starts the plugin watcher (again after {@link #stop()}: plugins register anew). */
  public synchronized void start() throws IOException {
    watcher.start();
    // On the kubelets' shared threads, not one per node; a fixed delay never overlaps itself.
    retry =
        KubeletThreads.api()
            .scheduleWithFixedDelay(
                this::retryUnprepare,
                UNPREPARE_RETRY_SECONDS,
                UNPREPARE_RETRY_SECONDS,
                TimeUnit.SECONDS);
  }

  /** Stops watching and forgets the plugins (a killed kubelet); claims and pods are kept. */
  public synchronized void stop() {
    watcher.stop();
    if (retry != null) {
      retry.cancel(false);
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The drivers whose plugins are registered now. */
  public Set<String> drivers() {
    return watcher.drivers();
  }

  /** Prepares the pod's claims; null when they all are, else why not (the kubelet tries again). */
  public String prepare(Pod pod) {
    // Pod claim name → (claim name, whether it must have been generated for this pod).
    Map<String, String> wanted = new LinkedHashMap<>();
    Set<String> generated = new java.util.HashSet<>();
    String podUid = pod.getMetadata().getUid();
    String ns = pod.getMetadata().getNamespace();
    try {
      if (pod.getSpec().getResourceClaims() != null) {
        for (PodResourceClaim pc : pod.getSpec().getResourceClaims()) {
          String name = claimName(pod, pc);
          if (name != null) { // null: a template that produced no claim, nothing to prepare
            wanted.put(pc.getName(), name);
            if (pc.getResourceClaimTemplateName() != null) {
              generated.add(pc.getName());
            }
          }
        }
      }
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
    String extended = DraExtendedResources.claimName(pod);
    if (extended != null) {
      wanted.put(EXTENDED_RESOURCES, extended);
    }
    if (wanted.isEmpty()) {
      return null;
    }
    Map<String, String> claimNames = new LinkedHashMap<>();
    List<JsonNode> fetched = new ArrayList<>();
    try {
      for (var w : wanted.entrySet()) {
        String name = w.getValue();
        GenericKubernetesResource claim = api().inNamespace(ns).withName(name).get();
        if (claim == null) {
          return "ResourceClaim " + ns + "/" + name + " not found";
        }
        JsonNode json = Serialization.jsonMapper().valueToTree(claim);
        if (generated.contains(w.getKey()) && !ownedBy(json, podUid)) {
          return "ResourceClaim "
              + ns
              + "/"
              + name
              + " was not created for pod "
              + pod.getMetadata().getName();
        }
        if (!reservedFor(json, podUid)) {
          return "pod "
              + pod.getMetadata().getName()
              + " ("
              + podUid
              + ") is not allowed to use ResourceClaim "
              + name
              + ": not in its status.reservedFor";
        }
        if (json.path("status").path("allocation").isMissingNode()) {
          return "ResourceClaim " + ns + "/" + name + " is not allocated";
        }
        for (JsonNode r : json.path("status").path("allocation").path("devices").path("results")) {
          String driver = r.path("driver").asText();
          if (watcher.plugin(driver) == null) {
            return "DRA driver " + driver + " is not registered on node " + nodeName;
          }
        }
        claimNames.put(w.getKey(), name);
        fetched.add(json);
      }
    } catch (RuntimeException e) {
      return "reading the pod's ResourceClaims failed: " + e.getMessage();
    }
    synchronized (this) {
      List<ClaimInfo> infos = new ArrayList<>();
      for (JsonNode json : fetched) {
        String uid = json.path("metadata").path("uid").asText();
        String name = json.path("metadata").path("name").asText();
        ClaimInfo info = claims.get(uid);
        if (info == null) {
          for (ClaimInfo other : claims.values()) {
            if (other.namespace.equals(ns) && other.name.equals(name)) {
              return "an older ResourceClaim "
                  + ns
                  + "/"
                  + name
                  + " (UID "
                  + other.uid
                  + ") is still prepared on this node";
            }
          }
          Set<String> drivers = new LinkedHashSet<>();
          json.path("status")
              .path("allocation")
              .path("devices")
              .path("results")
              .forEach(r -> drivers.add(r.path("driver").asText()));
          info = new ClaimInfo(uid, ns, name, drivers);
          claims.put(uid, info);
        }
        info.pods.add(podUid);
        infos.add(info);
      }
      pods.put(podUid, new PodClaims(ns, pod.getMetadata().getName(), pod, claimNames, infos));
      Map<String, List<ClaimInfo>> batches = new LinkedHashMap<>();
      for (ClaimInfo info : infos) {
        if (!info.prepared) {
          info.drivers.forEach(d -> batches.computeIfAbsent(d, k -> new ArrayList<>()).add(info));
        }
      }
      for (var batch : batches.entrySet()) {
        String why = prepareBatch(batch.getKey(), batch.getValue());
        if (why != null) {
          return why;
        }
      }
      for (ClaimInfo info : infos) {
        info.prepared = true;
      }
    }
    return null;
  }

  private String prepareBatch(String driver, List<ClaimInfo> infos) {
    DraPluginClient plugin = watcher.plugin(driver);
    if (plugin == null) {
      return "DRA driver " + driver + " is not registered on node " + nodeName;
    }
    var request = NodePrepareResourcesRequest.newBuilder();
    for (ClaimInfo info : infos) {
      request.addClaims(claim(info));
      info.prepareCalled = true;
    }
    var response = plugin.prepare(request.build());
    for (ClaimInfo info : infos) {
      var result = response.getClaimsMap().get(info.uid);
      if (result == null) {
        return "NodePrepareResources of " + driver + " skipped ResourceClaim " + info.ref();
      }
      if (!result.getError().isEmpty()) {
        return "NodePrepareResources failed for ResourceClaim "
            + info.name
            + ": "
            + result.getError();
      }
      info.devices.remove(driver);
      for (Device d : result.getDevicesList()) {
        info.add(
            driver,
            new ClaimInfo.PreparedDevice(
                d.getPoolName(),
                d.getDeviceName(),
                d.getRequestNamesList(),
                d.getCdiDeviceIdsList()));
      }
      LOG.info(
          "node {}: ResourceClaim {} prepared by {}: {}",
          nodeName,
          info.ref(),
          driver,
          result.getDevicesList().stream().map(Device::getDeviceName).toList());
    }
    return null;
  }

  /** The pod is gone: its claims that no other pod uses are unprepared. */
  public void unprepare(Pod pod) {
    synchronized (this) {
      PodClaims p = pods.remove(pod.getMetadata().getUid());
      if (p == null) {
        return;
      }
      for (ClaimInfo info : p.claims) {
        info.pods.remove(pod.getMetadata().getUid());
        if (info.pods.isEmpty()) {
          if (info.prepareCalled) {
            pendingUnprepare.add(info);
          } else {
            claims.remove(info.uid);
          }
        }
      }
    }
    retryUnprepare();
  }

  private synchronized void retryUnprepare() {
    for (ClaimInfo info : List.copyOf(pendingUnprepare)) {
      if (!info.pods.isEmpty()) {
        pendingUnprepare.remove(info); // a new pod took the claim over before it was unprepared
        continue;
      }
      boolean done = true;
      for (String driver : info.drivers) {
        DraPluginClient plugin = watcher.plugin(driver);
        if (plugin == null) {
          done = false;
          continue;
        }
        try {
          var answer =
              plugin.unprepare(
                  NodeUnprepareResourcesRequest.newBuilder().addClaims(claim(info)).build());
          var result = answer.getClaimsMap().get(info.uid);
          if (result == null || !result.getError().isEmpty()) {
            LOG.warn(
                "node {}: NodeUnprepareResources of {} failed for ResourceClaim {}: {}",
                nodeName,
                driver,
                info.ref(),
                result == null ? "no answer for the claim" : result.getError());
            done = false;
          }
        } catch (RuntimeException e) {
          LOG.warn(
              "node {}: NodeUnprepareResources of {} failed: {}", nodeName, driver, e.toString());
          done = false;
        }
      }
      if (done) {
        pendingUnprepare.remove(info);
        claims.remove(info.uid);
        LOG.info("node {}: ResourceClaim {} unprepared", nodeName, info.ref());
      }
    }
  }

  /** Claims prepared on the node now, by UID (for tests). */
  public synchronized Map<String, List<String>> preparedClaims() {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (ClaimInfo info : claims.values()) {
      if (info.prepared) {
        List<String> names = new ArrayList<>();
        info.devices.values().forEach(ds -> ds.forEach(d -> names.add(d.device())));
        out.put(info.uid, names);
      }
    }
    return out;
  }

  /** Claims whose unprepare has not succeeded yet. */
  public synchronized int pendingUnprepares() {
    return pendingUnprepare.size();
  }

  @Override
  public synchronized List<PodDynamicResources> pods() {
    List<PodDynamicResources> out = new ArrayList<>();
    for (PodClaims p : pods.values()) {
      Map<String, List<DynamicResource>> containers = new LinkedHashMap<>();
      List<Container> all = new ArrayList<>();
      if (p.pod.getSpec().getInitContainers() != null) {
        all.addAll(p.pod.getSpec().getInitContainers());
      }
      all.addAll(p.pod.getSpec().getContainers());
      for (Container c : all) {
        List<DynamicResource> resources = new ArrayList<>();
        List<io.fabric8.kubernetes.api.model.ResourceClaim> refs =
            new ArrayList<>(
                c.getResources() == null || c.getResources().getClaims() == null
                    ? List.of()
                    : c.getResources().getClaims());
        if (DraExtendedResources.usedBy(p.pod, c.getName())) {
          refs.add(new io.fabric8.kubernetes.api.model.ResourceClaim(EXTENDED_RESOURCES, null));
        }
        for (var ref : refs) {
          String claimName = p.claimNames.get(ref.getName());
          ClaimInfo info =
              p.claims.stream().filter(i -> i.name.equals(claimName)).findFirst().orElse(null);
          if (info == null || !info.prepared) {
            continue;
          }
          var dr =
              DynamicResource.newBuilder()
                  .setClaimName(info.name)
                  .setClaimNamespace(info.namespace);
          info.devices.forEach(
              (driver, devices) -> {
                for (ClaimInfo.PreparedDevice d : devices) {
                  boolean forRequest =
                      ref.getRequest() == null
                          || d.requestNames().isEmpty()
                          || d.requestNames().stream()
                              .anyMatch(
                                  r ->
                                      r.equals(ref.getRequest())
                                          || r.startsWith(ref.getRequest() + "/"));
                  if (!forRequest) {
                    continue;
                  }
                  var cr =
                      ClaimResource.newBuilder()
                          .setDriverName(driver)
                          .setPoolName(d.pool())
                          .setDeviceName(d.device());
                  d.cdiDeviceIds()
                      .forEach(id -> cr.addCdiDevices(CDIDevice.newBuilder().setName(id)));
                  dr.addClaimResources(cr);
                }
              });
          resources.add(dr.build());
        }
        if (!resources.isEmpty()) {
          containers.put(c.getName(), resources);
        }
      }
      if (!containers.isEmpty()) {
        out.add(new PodDynamicResources(p.namespace, p.name, containers));
      }
    }
    return out;
  }

  private static Claim claim(ClaimInfo info) {
    return Claim.newBuilder()
        .setNamespace(info.namespace)
        .setUid(info.uid)
        .setName(info.name)
        .build();
  }

  /**
   * The claim a pod's entry refers to, as {@code resourceclaim.Name} resolves it: a claim by name,
   * or the one the resourceclaim controller generated from a template (from the pod's status); null
   * when the template produced none.
   */
  private static String claimName(Pod pod, PodResourceClaim pc) {
    if (pc.getResourceClaimName() != null) {
      return pc.getResourceClaimName();
    }
    List<PodResourceClaimStatus> statuses =
        pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null
            ? List.of()
            : pod.getStatus().getResourceClaimStatuses();
    for (PodResourceClaimStatus s : statuses) {
      if (s.getName().equals(pc.getName())) {
        return s.getResourceClaimName();
      }
    }
    throw new IllegalStateException(
        "pod "
            + pod.getMetadata().getName()
            + " has no claim for "
            + pc.getName()
            + " in its status yet");
  }

  private static boolean ownedBy(JsonNode claim, String podUid) {
    for (JsonNode o : claim.path("metadata").path("ownerReferences")) {
      if (podUid.equals(o.path("uid").asText()) && o.path("controller").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  private static boolean reservedFor(JsonNode claim, String podUid) {
    for (JsonNode r : claim.path("status").path("reservedFor")) {
      if (podUid.equals(r.path("uid").asText())) {
        return true;
      }
    }
    return false;
  }

  private synchronized io.fabric8.kubernetes.client.dsl.MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>>
      api() {
    if (version == null) {
      version =
          ResourceApiVersion.discover(client)
              .orElseThrow(
                  () -> new IllegalStateException("the API server serves no resource.k8s.io"));
    }
    return client.genericKubernetesResources(version.apiVersion(), "ResourceClaim");
  }

  /** A pod's claims: pod claim name → claim name, and the claim records. */
  private record PodClaims(
      String namespace,
      String name,
      Pod pod,
      Map<String, String> claimNames,
      List<ClaimInfo> claims) {}
}
