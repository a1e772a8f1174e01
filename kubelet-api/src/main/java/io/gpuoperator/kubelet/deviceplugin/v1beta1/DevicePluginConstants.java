package io.gpuoperator.kubelet.deviceplugin.v1beta1;

/** The constants of the kubelet's device-plugin API ({@code v1beta1/constants.go}). */
public final class DevicePluginConstants {
  /** The API version a plugin registers with. */
  public static final String VERSION = "v1beta1";

  /** The kubelet's device-plugin directory on a real node. */
  public static final String DEVICE_PLUGIN_PATH = "/var/lib/kubelet/device-plugins/";

  /** The name of the kubelet's registration socket inside the device-plugin directory. */
  public static final String KUBELET_SOCKET_NAME = "kubelet.sock";

  /** The kubelet's registration socket on a real node. */
  public static final String KUBELET_SOCKET = DEVICE_PLUGIN_PATH + KUBELET_SOCKET_NAME;

  /** The directory of the pod-resources socket, relative to the kubelet's root directory. */
  public static final String POD_RESOURCES_DIR = "pod-resources";

  /** The device-plugin directory, relative to the kubelet's root directory. */
  public static final String DEVICE_PLUGINS_DIR = "device-plugins";

  /** {@code Device.health} of a usable device. */
  public static final String HEALTHY = "Healthy";

  /** {@code Device.health} of a device that must not be allocated. */
  public static final String UNHEALTHY = "Unhealthy";

  private DevicePluginConstants() {}
}
