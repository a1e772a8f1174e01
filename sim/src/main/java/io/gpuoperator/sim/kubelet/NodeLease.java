package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.gpuoperator.api.PatchTarget;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated node's Lease in {@code kube-node-lease}, renewed as the kubelet renews it: an update
 * of the Lease it last got back with a strictly later renew time, one renewal in flight at a time,
 * and the Lease created again (owned by the Node) when someone deleted it.
 */
final class NodeLease {
  private static final Logger LOG = LoggerFactory.getLogger(NodeLease.class);

  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final String nodeName;
  private final KubeletOptions options;
  private final BooleanSupplier running;

  /**
   * Guards {@link #lastRenew}, {@link #renewing} and {@link #heldLease}, never held across a
   * request: renewals are sent from the JVM's shared timer, which must never wait on one node's API
   * server.
   */
  private final Object leaseLock = new Object();

  /** Serialises blocking lease renewals (start, and a Lease found gone). */
  private final Object leaseCreateLock = new Object();

  private String lastRenew = "";
  private boolean renewing;
  private Lease heldLease;

  /**
   * @param running whether the kubelet runs (a killed kubelet renews nothing)
   */
  NodeLease(
      KubernetesClient client, String nodeName, KubeletOptions options, BooleanSupplier running) {
    this.client = client;
    this.nodeName = nodeName;
    this.options = options;
    this.running = running;
  }

  private String nodeName() {
    return nodeName;
  }

  /** Renews (or creates) the Lease and waits for it: a kubelet's start. */
  void renewNow() {
    synchronized (leaseCreateLock) {
      renewLease();
    }
  }

  /**
   * Sends a lease renewal and returns: the response is handled on the client's threads. As the
   * kubelet, an update (PUT) of the Lease it last got back, with a new renew time; the API server
   * applies no patch for it. A renewal still in flight (a slow API server) makes this tick skip, as
   * the kubelet's next attempt waits for its last. A conflict (someone else wrote the Lease) or a
   * Lease that is gone is handled on the API pool: merge-patched, or created again.
   */
  void renewAsync() {
    String now;
    Lease last;
    synchronized (leaseLock) {
      if (!running.getAsBoolean() || renewing || heldLease == null) {
        return;
      }
      renewing = true;
      now = nextRenewTime();
      last = heldLease;
    }
    Lease renewed =
        new LeaseBuilder(last)
            .editSpec()
            .withRenewTime(java.time.ZonedDateTime.parse(now))
            .withHolderIdentity(nodeName())
            .endSpec()
            .build();
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(leaseUrl())
            .put("application/json", client.getKubernetesSerialization().asJson(renewed))
            .build();
    http.sendAsync(request, String.class)
        .whenComplete(
            (response, error) -> {
              Lease back = null;
              if (error == null && response.isSuccessful()) {
                try {
                  back =
                      client.getKubernetesSerialization().unmarshal(response.body(), Lease.class);
                } catch (RuntimeException e) {
                  error = e;
                }
              }
              synchronized (leaseLock) {
                renewing = false;
                if (back != null) {
                  held(back, now);
                }
              }
              if (error != null) {
                LOG.warn("node {}: lease renewal failed: {}", nodeName(), error.toString());
              } else if (response.code() == 404 || response.code() == 409) {
                KubeletThreads.api().execute(this::renewLeaseQuietly);
              } else if (!response.isSuccessful()) {
                LOG.warn(
                    "node {}: lease renewal failed: HTTP {} {}",
                    nodeName(),
                    response.code(),
                    response.body());
              }
            });
  }

  /** Records the Lease the API server returned for a renewal at {@code time}. */
  private void held(Lease lease, String time) {
    synchronized (leaseLock) {
      heldLease = lease;
      if (time.compareTo(lastRenew) > 0) {
        lastRenew = time;
      }
    }
  }

  private String leaseUrl() {
    String base = client.getMasterUrl().toString();
    return (base.endsWith("/") ? base : base + "/")
        + "apis/coordination.k8s.io/v1/namespaces/"
        + KubeletConstants.LEASE_NAMESPACE
        + "/leases/"
        + nodeName();
  }

  /** Renews (or creates again) the Lease, blocking; only after a renewal found it gone. */
  private void renewLeaseQuietly() {
    synchronized (leaseCreateLock) {
      if (!running.getAsBoolean()) {
        return; // killed while this run was queued
      }
      try {
        renewLease();
      } catch (RuntimeException e) {
        LOG.warn("node {}: lease renewal failed: {}", nodeName(), e.toString());
      }
    }
  }

  /** Now as a MicroTime, strictly after the last renewal the API server accepted. */
  private String nextRenewTime() {
    String now = MICRO_TIME.format(Instant.now());
    if (now.compareTo(lastRenew) <= 0) {
      now = MICRO_TIME.format(Instant.parse(lastRenew).plusNanos(1000));
    }
    return now;
  }

  private void renewLease() {
    String now;
    synchronized (leaseLock) {
      now = nextRenewTime();
    }
    var leases = client.leases().inNamespace(KubeletConstants.LEASE_NAMESPACE);
    // At start, or when a renewal found the Lease gone or changed: once it exists a merge patch
    // (no read first); a 404 means someone deleted it, so it is created again.
    if (renewedBefore()) {
      try {
        patchLease(now);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }
    if (leases.withName(nodeName()).get() == null) {
      Node node = client.nodes().withName(nodeName()).get();
      Lease lease =
          new LeaseBuilder()
              .withNewMetadata()
              .withName(nodeName())
              .withNamespace(KubeletConstants.LEASE_NAMESPACE)
              .addNewOwnerReference()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(nodeName())
              .withUid(node.getMetadata().getUid())
              .endOwnerReference()
              .endMetadata()
              .withNewSpec()
              .withHolderIdentity(nodeName())
              .withLeaseDurationSeconds(options.leaseDurationSeconds())
              .withRenewTime(java.time.ZonedDateTime.parse(now))
              .endSpec()
              .build();
      try {
        held(leases.resource(lease).create(), now);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    patchLease(now);
  }

  private void patchLease(String now) {
    Lease back =
        client
            .leases()
            .inNamespace(KubeletConstants.LEASE_NAMESPACE)
            .resource(PatchTarget.of(Lease::new, KubeletConstants.LEASE_NAMESPACE, nodeName()))
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"renewTime\":\""
                    + now
                    + "\",\"holderIdentity\":\""
                    + nodeName()
                    + "\"}}");
    held(back, now);
  }

  private boolean renewedBefore() {
    synchronized (leaseLock) {
      return !lastRenew.isEmpty();
    }
  }
}
