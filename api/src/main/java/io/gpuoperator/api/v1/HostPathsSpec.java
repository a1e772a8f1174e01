package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Host paths the operands mount. Unset fields mean the original's defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HostPathsSpec {
  public static final String DEFAULT_ROOT_FS = "/";
  public static final String DEFAULT_DRIVER_INSTALL_DIR = "/run/nvidia/driver";
  public static final String DEFAULT_KUBELET_ROOT_DIR = "/var/lib/kubelet";

  @JsonPropertyDescription("The host's root file system as the operands see it (default /).")
  public String rootFS;

  @JsonPropertyDescription(
      "Where the driver is installed on the host (default /run/nvidia/driver).")
  public String driverInstallDir;

  @JsonPropertyDescription("The kubelet's root directory (default /var/lib/kubelet).")
  public String kubeletRootDir;
}
