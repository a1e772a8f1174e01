package io.gpuoperator.node.validator;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.PciDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox validator's vfio-pci, vgpu-manager and vgpu-devices steps. Each first records the
 * node's workload ({@link WorkloadConfig}) in {@code workload-type}, then checks only when the
 * workload needs it (else it is skipped): vm-passthrough needs every NVIDIA GPU bound to vfio-pci;
 * vm-vgpu needs the vGPU manager (a driver that sees the GPUs, with mdev parents or all SR-IOV
 * virtual functions) and at least one vGPU (mdev) device. sysfs is read under the system root.
 */
record SandboxValidation(ValidatorConfig config, NodeLabels labels, GpuBackendOpener opener) {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxValidation.class);

  /** The drivers that hand a GPU to a VM. */
  static final List<String> VFIO_DRIVERS = PciDevices.VFIO_DRIVERS;

  CompletableFuture<Verdict> validate(Waits waits, Component c) {
    return waits.call(this::recordWorkload).thenCompose(workload -> validate(waits, c, workload));
  }

  private CompletableFuture<Verdict> validate(Waits waits, Component c, WorkloadConfig workload) {
    WorkloadConfig needed =
        c == Component.VFIO_PCI ? WorkloadConfig.VM_PASSTHROUGH : WorkloadConfig.VM_VGPU;
    if (workload != needed) {
      return CompletableFuture.completedFuture(
          Verdict.skip("the node's workload is " + workload.label() + ", not " + needed.label()));
    }
    return switch (c) {
      case VFIO_PCI -> Retry.until(waits, config, "vfio-pci binding", this::vfioPci);
      case VGPU_MANAGER -> vgpuManager(waits);
      case VGPU_DEVICES -> Retry.until(waits, config, "vGPU devices", this::vgpuDevices);
      default -> throw new IllegalArgumentException(c + " is no sandbox step");
    };
  }

  /** Writes {@code workload-type} (the workload's name and a newline) and returns the workload. */
  WorkloadConfig recordWorkload() throws ValidationException {
    WorkloadConfig w =
        WorkloadConfig.of(
            labels.get(), config.defaultWorkload(), why -> LOG.info("GPU workload: {}", why));
    MarkerFiles markers = new MarkerFiles(config.validationsDir());
    try {
      markers.write(ValidatorEnv.WORKLOAD_TYPE, w.label() + "\n");
    } catch (IOException e) {
      throw new ValidationException(
          "cannot write " + markers.path(ValidatorEnv.WORKLOAD_TYPE) + ": " + e.getMessage(), e);
    }
    return w;
  }

  private Path sysfs() {
    return config.systemRoot().resolve("sys");
  }

  private List<PciDevices.Device> gpus() throws ValidationException {
    try {
      return PciDevices.scan(sysfs()).stream().filter(PciDevices.Device::isNvidiaGpu).toList();
    } catch (IOException e) {
      throw new ValidationException("cannot list the PCI devices: " + e.getMessage(), e);
    }
  }

  /** Every NVIDIA GPU is bound to a VFIO driver; a node without one fails. */
  private Verdict vfioPci() throws ValidationException {
    List<PciDevices.Device> gpus = gpus();
    if (gpus.isEmpty()) {
      throw new ValidationException(
          "no NVIDIA GPU in " + sysfs().resolve("bus/pci/devices") + " to pass through");
    }
    List<String> unbound = new ArrayList<>();
    for (PciDevices.Device d : gpus) {
      String driver;
      try {
        driver = PciDevices.driver(sysfs(), d.address());
      } catch (IOException e) {
        throw new ValidationException("cannot read the driver of " + d.address(), e);
      }
      if (driver == null || !VFIO_DRIVERS.contains(driver)) {
        unbound.add(d.address() + " (" + (driver == null ? "no driver" : driver) + ")");
      }
    }
    if (!unbound.isEmpty()) {
      throw new ValidationException(
          "GPUs not bound to " + String.join(" or ", VFIO_DRIVERS) + ": " + unbound);
    }
    LOG.info("all {} NVIDIA GPUs are bound to a VFIO driver", gpus.size());
    return Verdict.ready(Component.VFIO_PCI, "");
  }

  /**
   * The vGPU manager's driver (the host's when the host has one, else the driver root's) sees the
   * GPUs, and they are ready to be split: mdev parents exist, or every GPU with SR-IOV has all its
   * virtual functions. A host driver's marker is {@code host-vgpu-manager-ready}.
   */
  private CompletableFuture<Verdict> vgpuManager(Waits waits) {
    return Retry.until(waits, config, "vGPU manager", this::vgpuDriver)
        .thenCompose(v -> Retry.until(waits, config, "vGPU parent devices", this::vgpuParents))
        .thenApply(
            v ->
                config.hostDriver()
                    ? Verdict.readyAs(Component.HOST_VGPU_MANAGER_READY)
                    : Verdict.ready(Component.VGPU_MANAGER, ""));
  }

  private Void vgpuDriver() throws ValidationException {
    GpuBackend backend = opener.openFor("vGPU manager", config.driverRoot());
    try {
      if (backend.devices().isEmpty()) {
        throw new ValidationException("vGPU manager at " + config.driverRoot() + ": no GPU found");
      }
    } finally {
      opener.release(backend);
    }
    return null;
  }

  private Void vgpuParents() throws ValidationException {
    Path mdevBus = sysfs().resolve("class/mdev_bus");
    if (!list(mdevBus).isEmpty()) {
      return null;
    }
    List<String> incomplete = new ArrayList<>();
    int sriov = 0;
    for (PciDevices.Device d : gpus()) {
      Path dev = sysfs().resolve("bus/pci/devices").resolve(d.address());
      Integer total = number(dev.resolve("sriov_totalvfs"));
      if (total == null || total == 0) {
        continue;
      }
      sriov++;
      Integer enabled = number(dev.resolve("sriov_numvfs"));
      if (enabled == null || !enabled.equals(total)) {
        incomplete.add(d.address() + " (" + (enabled == null ? 0 : enabled) + "/" + total + ")");
      }
    }
    if (sriov == 0) {
      throw new ValidationException(
          "no mdev parent devices in " + mdevBus + " and no NVIDIA GPU with SR-IOV");
    }
    if (!incomplete.isEmpty()) {
      throw new ValidationException("SR-IOV virtual functions not all enabled: " + incomplete);
    }
    return null;
  }

  /** At least one mediated (vGPU) device whose parent is an NVIDIA device. */
  private Verdict vgpuDevices() throws ValidationException {
    Path dir = sysfs().resolve("bus/mdev/devices");
    int found = 0;
    for (Path mdev : list(dir)) {
      try {
        Path parent = mdev.toRealPath().getParent();
        String vendor = Files.readString(parent.resolve("vendor")).trim().toLowerCase(Locale.ROOT);
        if (vendor.equals("0x10de")) {
          found++;
        }
      } catch (IOException e) {
        // A device gone while listing, or one without a PCI parent: not an NVIDIA vGPU.
      }
    }
    if (found == 0) {
      throw new ValidationException("no NVIDIA vGPU (mdev) device in " + dir);
    }
    LOG.info("{} NVIDIA vGPU devices", found);
    return Verdict.ready(Component.VGPU_DEVICES, "");
  }

  private static List<Path> list(Path dir) throws ValidationException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new ValidationException("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  private static Integer number(Path file) {
    try {
      return Integer.parseInt(Files.readString(file).trim());
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }
}
