package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.api.model.resource.v1.CounterSet;
import java.util.List;
import java.util.Optional;

/**
 * Everything the node offers through DRA at one moment: its devices in slice order (the scheduler
 * takes the first device that fits, so the order is part of the answer), the counter sets of its
 * partitionable GPUs, and notes on GPUs published differently than asked (a log line each).
 */
public record DeviceInventory(
    List<DraDevice> devices, List<CounterSet> counterSets, List<String> notes) {

  public DeviceInventory {
    devices = List.copyOf(devices);
    counterSets = List.copyOf(counterSets);
    notes = List.copyOf(notes);
  }

  /** The device of that name. */
  public Optional<DraDevice> device(String name) {
    return devices.stream().filter(d -> d.name().equals(name)).findFirst();
  }
}
