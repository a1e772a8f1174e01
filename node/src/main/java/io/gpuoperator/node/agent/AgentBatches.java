package io.gpuoperator.node.agent;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The batches of {@link AgentLane#scheduleBatched}: per period, one timer task that runs every
 * member on one pool thread. At 1,000 simulated nodes the device plugins' health passes alone were
 * 750 timer wake-ups and 750 thread hand-offs a second; batched they are one of each.
 */
final class AgentBatches {
  record Member(AgentLane lane, AgentLane.Task task, Runnable body) {}

  private static final Map<Long, Batch> BATCHES = new ConcurrentHashMap<>();

  private AgentBatches() {}

  static void add(long periodNanos, Member m) {
    BATCHES.computeIfAbsent(periodNanos, Batch::new).members.add(m);
  }

  private static final class Batch {
    final Set<Member> members = ConcurrentHashMap.newKeySet();
    final AtomicBoolean running = new AtomicBoolean();

    Batch(long periodNanos) {
      AgentThreads.timerThread()
          .scheduleWithFixedDelay(this::tick, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    private void tick() {
      if (members.isEmpty() || !running.compareAndSet(false, true)) {
        return; // nothing to do, or the last round still runs: skip this one
      }
      AgentThreads.workers()
          .execute(
              () -> {
                try {
                  for (Member m : members) {
                    if (m.task().cancelled() || m.lane().closed()) {
                      members.remove(m);
                    } else {
                      m.lane().runBatched(m.task(), m.body());
                    }
                  }
                } finally {
                  running.set(false);
                }
              });
    }
  }
}
