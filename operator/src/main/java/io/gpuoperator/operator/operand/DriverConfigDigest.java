package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The original's {@code DRIVER_CONFIG_DIGEST}: a stable digest of everything that decides what the
 * driver installs (images, commands, literal env, mounts, volumes), set on the driver manager and
 * the driver container, so that a change that installs the same driver (a label, a toleration)
 * restarts the driver pod without evicting workloads. Not the original's bytes (it hashes a Go
 * value dump), but the same inputs and the same meaning. Pure.
 */
final class DriverConfigDigest {
  static final String ENV = "DRIVER_CONFIG_DIGEST";

  private DriverConfigDigest() {}

  /** Sets the digest of the pod's final spec on the manager and driver containers. */
  static void set(PodSpec pod, String managerName, String driverName, List<String> sidecars) {
    TreeMap<String, Object> in = new TreeMap<>();
    Container manager = find(pod.getInitContainers(), managerName);
    Container driver = find(pod.getContainers(), driverName);
    if (driver == null) {
      return;
    }
    if (manager != null) {
      in.put("managerImage", manager.getImage());
      in.put("managerEnv", literalEnv(manager));
    }
    in.put("driverImage", driver.getImage());
    in.put("driverCommand", driver.getCommand());
    in.put("driverArgs", driver.getArgs());
    in.put("driverEnv", literalEnv(driver));
    if (driver.getEnvFrom() != null) {
      in.put(
          "driverEnvFrom",
          driver.getEnvFrom().stream()
              .map(e -> e.getSecretRef() == null ? "" : e.getSecretRef().getName())
              .toList());
    }
    TreeSet<String> mounts = new TreeSet<>();
    if (driver.getVolumeMounts() != null) {
      driver
          .getVolumeMounts()
          .forEach(
              v ->
                  mounts.add(
                      v.getName()
                          + "|"
                          + v.getMountPath()
                          + "|"
                          + v.getSubPath()
                          + "|"
                          + v.getReadOnly()));
    }
    in.put("driverMounts", mounts);
    for (String name : sidecars) {
      Container c = find(pod.getContainers(), name);
      if (c != null) {
        in.put(name, c.getImage() + "|" + literalEnv(c));
      }
    }
    TreeSet<String> volumes = new TreeSet<>();
    if (pod.getVolumes() != null) {
      pod.getVolumes()
          .forEach(
              v ->
                  volumes.add(
                      v.getName()
                          + "|"
                          + (v.getConfigMap() == null ? "" : v.getConfigMap().getName())
                          + "|"
                          + (v.getSecret() == null ? "" : v.getSecret().getSecretName())
                          + "|"
                          + (v.getHostPath() == null ? "" : v.getHostPath().getPath())));
    }
    in.put("volumes", volumes);
    String value = Integer.toUnsignedString(fnv32a(in.toString()));
    if (manager != null) {
      DaemonSets.setEnv(manager, ENV, value);
    }
    DaemonSets.setEnv(driver, ENV, value);
  }

  private static Container find(List<Container> containers, String name) {
    return containers == null
        ? null
        : containers.stream().filter(c -> c.getName().equals(name)).findFirst().orElse(null);
  }

  private static TreeMap<String, String> literalEnv(Container c) {
    TreeMap<String, String> out = new TreeMap<>();
    if (c.getEnv() != null) {
      c.getEnv().stream()
          .filter(e -> e.getValueFrom() == null && !e.getName().equals(ENV))
          .forEach(e -> out.put(e.getName(), e.getValue() == null ? "" : e.getValue()));
    }
    return out;
  }

  /** FNV-1a, 32 bit, as the original hashes. */
  static int fnv32a(String s) {
    int h = 0x811c9dc5;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x01000193;
    }
    return h;
  }
}
