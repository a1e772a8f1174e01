package io.gpuoperator.kubelet.dra;

import java.util.List;

/**
 * The names the kubelet and a DRA plugin agree on: the plugin type and gRPC service names of the
 * registration handshake ({@code pkg/apis/dra/v1/types.go}, {@code v1beta1/types.go}) and the
 * kubelet directories the sockets live in.
 */
public final class DraConstants {
  /** {@code PluginInfo.type} of a DRA plugin. */
  public static final String PLUGIN_TYPE = "DRAPlugin";

  /** The v1 DRAPlugin service, listed in {@code PluginInfo.supported_versions} (kubelet 1.34+). */
  public static final String SERVICE_V1 = "v1.DRAPlugin";

  /** The v1beta1 DRAPlugin service (kubelet 1.32 and 1.33; still served by newer ones). */
  public static final String SERVICE_V1BETA1 = "v1beta1.DRAPlugin";

  /**
   * The services a plugin offers, most preferred first: the kubelet picks the first it knows, as
   * its {@code validateSupportedServices} does.
   */
  public static final List<String> SERVICES = List.of(SERVICE_V1, SERVICE_V1BETA1);

  /** The plugin watcher's directory, relative to the kubelet's root directory. */
  public static final String PLUGINS_REGISTRY_DIR = "plugins_registry";

  /** Where plugins keep their service sockets, relative to the kubelet's root directory. */
  public static final String PLUGINS_DIR = "plugins";

  /** The kubelet's root directory on a real node. */
  public static final String KUBELET_ROOT = "/var/lib/kubelet";

  private DraConstants() {}
}
