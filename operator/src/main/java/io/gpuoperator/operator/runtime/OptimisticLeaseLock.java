package io.gpuoperator.operator.runtime;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A Lease lock that renews optimistically, as client-go's leader election does: while this instance
 * holds the Lease and its last write is younger than the lease duration, {@link #get} answers with
 * the Lease it wrote last instead of reading it, and the renewal is one update carrying that
 * Lease's resourceVersion. If anyone else changed the Lease since, the API server refuses the
 * update (409) and the next {@code get} reads it again. fabric8's {@code LeaseLock} reads the Lease
 * before every renewal and then patches it: 60 requests a minute at a 2 s retry period instead of
 * 30, the operator's main work while idle (BENCHMARKS.md "Operator footprint"). A follower reads
 * the Lease at every attempt, as before.
 */
final class OptimisticLeaseLock implements Lock {
  private final String namespace;
  private final String name;
  private final String identity;
  private final LongSupplier nanoClock;

  /** The Lease as this instance last wrote or read it; null when it must be read. */
  private Lease last;

  /** When {@link #last} was written by this instance (nanoClock), valid while it holds it. */
  private long writtenAt;

  OptimisticLeaseLock(String namespace, String name, String identity) {
    this(namespace, name, identity, System::nanoTime);
  }

  OptimisticLeaseLock(String namespace, String name, String identity, LongSupplier nanoClock) {
    this.namespace = Objects.requireNonNull(namespace, "lease namespace");
    this.name = Objects.requireNonNull(name, "lease name");
    this.identity = Objects.requireNonNull(identity, "identity");
    this.nanoClock = nanoClock;
  }

  @Override
  public synchronized LeaderElectionRecord get(KubernetesClient client) {
    if (!heldByUs()) {
      last = client.leases().inNamespace(namespace).withName(name).get();
      writtenAt = 0;
    }
    return last == null ? null : record(last);
  }

  @Override
  public synchronized void create(KubernetesClient client, LeaderElectionRecord record) {
    write(() -> client.leases().resource(lease(record, null)).create());
  }

  @Override
  public synchronized void update(KubernetesClient client, LeaderElectionRecord record) {
    if (last == null) {
      throw new IllegalStateException("the Lease " + describe() + " was not read before updating");
    }
    String version = last.getMetadata().getResourceVersion();
    write(() -> client.leases().resource(lease(record, version)).update());
  }

  @Override
  public String identity() {
    return identity;
  }

  @Override
  public String describe() {
    return "Lease " + namespace + "/" + name + " (" + identity + ")";
  }

  /** Whether the Lease last written is ours and young enough to renew without reading it. */
  private boolean heldByUs() {
    if (last == null || writtenAt == 0 || last.getSpec() == null) {
      return false;
    }
    Integer seconds = last.getSpec().getLeaseDurationSeconds();
    long age = nanoClock.getAsLong() - writtenAt;
    return identity.equals(last.getSpec().getHolderIdentity())
        && seconds != null
        && age < Duration.ofSeconds(seconds).toNanos();
  }

  private void write(java.util.function.Supplier<Lease> request) {
    long at = nanoClock.getAsLong();
    try {
      last = request.get();
      // 0 means "never written" (a clock may start anywhere, so 0 itself is nudged).
      writtenAt = at == 0 ? 1 : at;
    } catch (KubernetesClientException e) {
      // Someone else wrote it (409) or the server failed: read it before the next attempt.
      last = null;
      writtenAt = 0;
      throw e;
    }
  }

  private Lease lease(LeaderElectionRecord record, String resourceVersion) {
    return new LeaseBuilder()
        .withMetadata(
            new ObjectMetaBuilder()
                .withNamespace(namespace)
                .withName(name)
                .withResourceVersion(resourceVersion)
                .build())
        .withNewSpec()
        .withHolderIdentity(record.getHolderIdentity())
        .withLeaseDurationSeconds((int) record.getLeaseDuration().toSeconds())
        .withAcquireTime(record.getAcquireTime())
        .withRenewTime(record.getRenewTime())
        .withLeaseTransitions(record.getLeaderTransitions())
        .endSpec()
        .build();
  }

  private static LeaderElectionRecord record(Lease lease) {
    LeaseSpec spec = lease.getSpec();
    if (spec == null) {
      return null;
    }
    return new LeaderElectionRecord(
        spec.getHolderIdentity(),
        Duration.ofSeconds(
            spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds()),
        spec.getAcquireTime(),
        spec.getRenewTime(),
        spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions());
  }
}
