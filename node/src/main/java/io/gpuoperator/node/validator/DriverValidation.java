package io.gpuoperator.node.validator;

import io.gpuoperator.node.agent.DriverReady;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver step: the GPU backend initialises from the driver root and sees at least one GPU; then
 * the host's {@code /dev/char} links to the NVIDIA device nodes are made ({@link DevCharSymlinks}).
 * Its marker holds KEY=VALUE lines that the toolkit, device plugin and MIG manager source.
 */
final class DriverValidation {
  private static final Logger LOG = LoggerFactory.getLogger(DriverValidation.class);
  private static final Path HOST_ROOT = Path.of("/");

  private final ValidatorConfig config;
  private final GpuBackendOpener opener;
  private final DevCharSymlinks devChar;

  DriverValidation(ValidatorConfig config, GpuBackendOpener opener) {
    this(config, opener, DevCharSymlinks.host());
  }

  /** With the {@code /dev/char} links made through {@code devChar} (tests: temp directories). */
  DriverValidation(ValidatorConfig config, GpuBackendOpener opener, DevCharSymlinks devChar) {
    this.config = config;
    this.opener = opener;
    this.devChar = devChar;
  }

  /** Returns the content of driver-ready. */
  String validate() throws ValidationException {
    GpuBackend backend = opener.openFor("driver", config.driverRoot());
    String marker;
    List<Integer> minors;
    String kind;
    try {
      kind = backend.kind();
      List<GpuDevice> devices = backend.devices();
      if (devices.isEmpty()) {
        throw new ValidationException(
            "driver at " + config.driverRoot() + " (" + kind + "): no GPU found");
      }
      minors = devices.stream().map(GpuDevice::minor).toList();
      String root = config.driverRoot().toString();
      String ctrPath = config.hostDriver() ? "/host" : root;
      Path devRoot = devRoot(config);
      Map<String, String> values = new LinkedHashMap<>();
      values.put("IS_HOST_DRIVER", Boolean.toString(config.hostDriver()));
      values.put("NVIDIA_DRIVER_ROOT", root);
      values.put("DRIVER_ROOT_CTR_PATH", ctrPath);
      values.put("NVIDIA_DEV_ROOT", devRoot.toString());
      values.put("DEV_ROOT_CTR_PATH", devRoot.equals(HOST_ROOT) ? "/host" : root);
      values.put("DRIVER_VERSION", backend.driverVersion());
      values.put("GPU_COUNT", Integer.toString(devices.size()));
      marker = DriverReady.format(values);
    } catch (RuntimeException e) {
      throw new ValidationException(
          "driver at " + config.driverRoot() + ": querying GPUs failed: " + e.getMessage(), e);
    } finally {
      opener.release(backend);
    }
    linkDevChar(kind, minors);
    return marker;
  }

  /**
   * The host's {@code /dev/char} links. A failure fails the step, as in the original, saying how to
   * turn them off; there is nothing to link for simulated GPUs or on a WSL2 host.
   */
  private void linkDevChar(String kind, List<Integer> minors) throws ValidationException {
    String off = ValidatorEnv.DISABLE_DEV_CHAR_SYMLINK_CREATION + "=true";
    if (config.disableDevCharSymlinks()) {
      LOG.info("/dev/char links to the NVIDIA device nodes: skipped ({})", off);
      return;
    }
    Path devRoot = devRoot(config);
    NvidiaMajors simulated = null;
    if (!kind.equals("nvml")) {
      // Simulated GPUs have device nodes only where a simulation on a real node made them.
      simulated = NvidiaMajors.ofNodes(devChar.devHere(devRoot));
      if (simulated.gpu() == null) {
        LOG.info("/dev/char links: skipped ({} GPUs without device nodes)", kind);
        return;
      }
    } else if (devChar.wsl()) {
      LOG.info("/dev/char links: skipped (a WSL2 host: its GPUs have no device nodes)");
      return;
    }
    DevCharSymlinks.Outcome o;
    try {
      o =
          simulated == null
              ? devChar.create(minors, devRoot)
              : devChar.create(simulated, minors, devRoot);
    } catch (ValidationException e) {
      throw new ValidationException(
          "cannot link the NVIDIA device nodes under the host's /dev/char, which runc with the"
              + " systemd cgroup driver needs (NVIDIA/gpu-operator#430): "
              + e.getMessage()
              + "; to go without them, set "
              + off
              + " in the policy's validator.driver.env",
          e);
    }
    LOG.info(
        "/dev/char links to the NVIDIA device nodes in {}: {} created, {} replaced, {} kept",
        devRoot.resolve("dev"),
        o.created(),
        o.replaced(),
        o.kept());
    if (!o.failed().isEmpty()) {
      LOG.warn("/dev/char links not made (see above): {}", o.failed());
    }
  }

  /**
   * Where the device nodes are on the host, by the original's rule: a host driver's in {@code
   * /dev}; a driver container's in its root's {@code dev} when the root has one, else in the
   * host's.
   */
  static Path devRoot(ValidatorConfig config) {
    Path root = config.driverRoot();
    return !config.hostDriver() && Files.isDirectory(root.resolve("dev")) ? root : HOST_ROOT;
  }
}
