package io.gpuoperator.node.gpu.sim;

/**
 * Simulated nodes for tests, written as the part of a node profile a test is about (its {@code
 * gpus:}, {@code numaNodes:} ...): the driver and CUDA versions every test node has are added here
 * unless the test gives its own.
 */
public final class TestNodes {
  /** The driver and CUDA versions of a test node. */
  static final String VERSIONS = "driverVersion: 550.54.15\ncudaVersion: \"12.4\"\n";

  private TestNodes() {}

  /** The node profile's YAML: {@link #VERSIONS} then {@code profile}, unless it has a driver. */
  public static String yaml(String profile) {
    return profile.contains("driverVersion:") ? profile : VERSIONS + profile;
  }

  /** The simulated node {@code node-a} of this profile (see {@link #yaml}). */
  public static SimulatedBackend backend(String profile) {
    return backend(profile, "node-a");
  }

  /** The simulated node {@code node} (its UUIDs derive from the name) of this profile. */
  public static SimulatedBackend backend(String profile, String node) {
    return new SimulatedBackend(HardwareProfiles.parseNode(yaml(profile), "test.yaml"), node);
  }
}
