package io.gpuoperator.sim.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import java.time.Instant;

/**
 * A container of a pod as the simulated runtime keeps it: its current run, restart count, the
 * previous run's end, and when a crashed container may restart. Mutated only by its pod worker.
 */
final class ContainerSlot {
  final Container spec;
  final boolean init;
  ContainerProcess process;
  String containerId;
  int restartCount;
  ContainerProcess previous;
  String previousId;
  Instant restartAt;

  ContainerSlot(Container spec, boolean init) {
    this.spec = spec;
    this.init = init;
  }

  String name() {
    return spec.getName();
  }

  boolean running() {
    return process != null && !process.hasExited();
  }

  boolean exited() {
    return process != null && process.hasExited();
  }

  boolean succeeded() {
    return exited() && process.exitCode() == 0;
  }
}
