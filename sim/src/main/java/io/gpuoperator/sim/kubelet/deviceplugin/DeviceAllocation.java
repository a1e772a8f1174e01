package io.gpuoperator.sim.kubelet.deviceplugin;

import io.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One container's request for one resource, put to the resource's plugin as the kubelet does: the
 * plugin's preferred devices when it offers {@code GetPreferredAllocation} (the first available
 * otherwise, and all of them when exactly enough are free), then {@code Allocate} and, when the
 * plugin asks for it, {@code PreStartContainer}. A refusal carries the kubelet's own message.
 */
final class DeviceAllocation {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceAllocation.class);

  private DeviceAllocation() {}

  /**
   * Allocates {@code count} of the {@code available} devices (healthy, not held by another pod).
   *
   * @throws Refused too few devices available, or the plugin failed a call
   */
  static ContainerAssignment allocate(
      PluginEndpoint endpoint,
      List<String> available,
      String container,
      boolean initContainer,
      int count)
      throws Refused {
    String resource = endpoint.resource();
    if (available.size() < count) {
      throw new Refused(
          "Allocate failed due to requested number of devices unavailable for "
              + resource
              + ". Requested: "
              + count
              + ", Available: "
              + available.size()
              + ", which is unexpected");
    }
    try {
      List<String> chosen = choose(endpoint, available, count);
      ContainerAllocateResponse response = endpoint.allocate(chosen);
      if (endpoint.options().getPreStartRequired()) {
        endpoint.preStart(chosen);
      }
      return new ContainerAssignment(container, resource, chosen, response, initContainer);
    } catch (StatusRuntimeException e) {
      throw new Refused("Allocate failed due to " + goStatusText(e) + ", which is unexpected");
    }
  }

  private static List<String> choose(PluginEndpoint endpoint, List<String> available, int count) {
    if (available.size() == count) {
      return available;
    }
    if (endpoint.options().getGetPreferredAllocationAvailable()) {
      List<String> preferred =
          new ArrayList<>(new LinkedHashSet<>(endpoint.preferredAllocation(available, count)));
      preferred.retainAll(available);
      if (preferred.size() == count) {
        return preferred;
      }
      LOG.warn(
          "plugin for {} preferred {} for a request of {}; taking the first available",
          endpoint.resource(),
          preferred,
          count);
    }
    return available.subList(0, count);
  }

  /** The message text of a gRPC error as the kubelet (Go) prints it. */
  static String goStatusText(StatusRuntimeException e) {
    StringBuilder code = new StringBuilder();
    for (String part : e.getStatus().getCode().name().split("_")) {
      code.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
    }
    String desc = e.getStatus().getDescription();
    return "rpc error: code = " + code + " desc = " + (desc == null ? "" : desc);
  }

  /** A refusal during admission, with the kubelet's message. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }
}
