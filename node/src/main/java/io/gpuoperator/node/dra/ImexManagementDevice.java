package io.gpuoperator.node.dra;

import io.gpuoperator.node.gpu.CharacterDevices;
import java.util.HashMap;
import java.util.Map;

/**
 * The IMEX daemon's fabric management capability, {@code fabric-imex-mgmt}: the NVIDIA driver's
 * capability device {@code /dev/nvidia-caps/nvidia-cap<minor>} (major of {@code nvidia-caps} in
 * {@code /proc/devices}), whose minor and mode the driver publishes in {@code
 * /proc/driver/nvidia/capabilities/fabric-imex-mgmt} ({@code DeviceFileMinor: <n>}, {@code
 * DeviceFileMode: <mode in decimal>}). NVIDIA's plugin gives it to the IMEX daemon's container on a
 * node in a clique, as this one does.
 *
 * @param path the device node's path in the container
 * @param major the major of {@code nvidia-caps}
 * @param minor the capability's minor
 * @param fileMode the node's file mode, as the driver publishes it
 */
public record ImexManagementDevice(String path, int major, int minor, int fileMode) {
  /** The capability's name. */
  public static final String CAPABILITY = "fabric-imex-mgmt";

  /** The kernel's name of the capability devices' character device. */
  public static final String CAPS_DEVICE = "nvidia-caps";

  /** Where the driver publishes the capability, relative to {@code /proc}. */
  public static final String CAPABILITY_FILE = "driver/nvidia/capabilities/" + CAPABILITY;

  /**
   * Reads the capability file's and the device list's text.
   *
   * @param capabilityFile the capability file's name, for errors
   * @param capability its text
   * @param procDevicesFile the device list's name, for errors
   * @param procDevices its text
   * @throws IllegalStateException naming the file and what it lacks
   */
  public static ImexManagementDevice parse(
      String capabilityFile, String capability, String procDevicesFile, String procDevices) {
    Map<String, String> fields = new HashMap<>();
    for (String line : capability.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
      }
    }
    int minor = number(capabilityFile, fields, "DeviceFileMinor");
    int mode = number(capabilityFile, fields, "DeviceFileMode");
    Integer major = CharacterDevices.parse(procDevices).get(CAPS_DEVICE);
    if (major == null) {
      throw new IllegalStateException(
          procDevicesFile
              + " lists no character device "
              + CAPS_DEVICE
              + ": the NVIDIA driver loaded here has no capability devices");
    }
    return new ImexManagementDevice("/dev/nvidia-caps/nvidia-cap" + minor, major, minor, mode);
  }

  private static int number(String file, Map<String, String> fields, String key) {
    String value = fields.get(key);
    if (value == null || !value.matches("[0-9]{1,9}")) {
      throw new IllegalStateException(
          file
              + ": "
              + key
              + ": expected a number, got "
              + (value == null ? "no such line" : "\"" + value + "\""));
    }
    return Integer.parseInt(value);
  }
}
