package io.gpuoperator.sim.kubelet.dra;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kubelet's record of one ResourceClaim on its node (its claim-info cache entry): the drivers
 * the allocation names, the devices each plugin prepared with their CDI IDs, and the pods using it.
 * A claim is prepared once however many pods share it, and unprepared when the last is gone.
 */
final class ClaimInfo {
  final String uid;
  final String namespace;
  final String name;
  final Set<String> drivers;
  final Map<String, List<PreparedDevice>> devices = new LinkedHashMap<>();
  final Set<String> pods = new HashSet<>();
  boolean prepareCalled;
  boolean prepared;

  ClaimInfo(String uid, String namespace, String name, Set<String> drivers) {
    this.uid = uid;
    this.namespace = namespace;
    this.name = name;
    this.drivers = Set.copyOf(drivers);
  }

  String ref() {
    return namespace + "/" + name;
  }

  void add(String driver, PreparedDevice device) {
    devices.computeIfAbsent(driver, k -> new ArrayList<>()).add(device);
  }

  /**
   * One device a plugin prepared.
   *
   * @param requestNames the requests it serves; empty for all
   */
  record PreparedDevice(
      String pool, String device, List<String> requestNames, List<String> cdiDeviceIds) {
    PreparedDevice {
      requestNames = List.copyOf(requestNames);
      cdiDeviceIds = List.copyOf(cdiDeviceIds);
    }
  }
}
