package io.gpuoperator.node.gpu;

import java.util.List;

/**
 * What every backend's subscription fixes when it is made: the GPUs it listens to and those that
 * support none of the wanted kinds. The NVML and simulated subscriptions differ only in how they
 * wait for an event.
 */
public abstract class AbstractGpuEventSubscription implements GpuEventSubscription {
  private final List<Integer> registered;
  private final List<Integer> unsupported;

  protected AbstractGpuEventSubscription(List<Integer> registered, List<Integer> unsupported) {
    this.registered = List.copyOf(registered);
    this.unsupported = List.copyOf(unsupported);
  }

  @Override
  public final List<Integer> registeredGpus() {
    return registered;
  }

  @Override
  public final List<Integer> unsupportedGpus() {
    return unsupported;
  }
}
