package io.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;

/** Host paths the operands mount. Unset fields mean the original's defaults. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HostPathsSpec {
  public static final String DEFAULT_ROOT_FS = "/";
  public static final String DEFAULT_DRIVER_INSTALL_DIR = "/run/nvidia/driver";
  public static final String DEFAULT_KUBELET_ROOT_DIR = "/var/lib/kubelet";

  public String rootFS;
  public String driverInstallDir;
  public String kubeletRootDir;
}
