package io.gpuoperator.node.dra;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.kubelet.dra.DraServices;
import io.gpuoperator.kubelet.grpc.UnixSockets;
import io.gpuoperator.node.gpu.CharacterDevices;
import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.sim.SimulatedBackend;
import io.grpc.Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second DRA driver of the plugin, {@code compute-domain.nvidia.com} (NVIDIA's ComputeDomain
 * kubelet plugin's name), served beside {@code gpu.nvidia.com} when ComputeDomains are enabled: its
 * own pool of the node's IMEX channel and daemon devices ({@link ComputeDomainDevicesModel}), its
 * own DRAPlugin socket and its own registration with the kubelet, as NVIDIA runs it in a container
 * of its own. The node's clique is read from its GPUs once, at start (NVIDIA's plugin does the
 * same); a node without one publishes an empty pool.
 */
final class ComputeDomainPlugin implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeDomainPlugin.class);

  private final DraPluginSettings settings;
  private final ComputeDomainState state;
  private final SlicePublisher publisher;
  private PluginRegistrationService registration;
  private Server pluginServer;
  private Server registrationServer;
  private volatile boolean published;

  private ComputeDomainPlugin(
      DraPluginSettings settings, ComputeDomainState state, SlicePublisher publisher) {
    this.settings = settings;
    this.state = state;
    this.publisher = publisher;
  }

  /** Reads the clique, publishes, serves and registers. */
  static ComputeDomainPlugin start(
      GpuBackend backend,
      KubernetesClient client,
      ResourceApiVersion version,
      DraPluginSettings settings,
      ExecutorService handlers)
      throws IOException {
    String clique =
        ComputeDomainDevicesModel.clique(
                backend.devices().stream().map(GpuDevice::index).map(backend::fabric).toList())
            .orElse("");
    Files.createDirectories(settings.computeDomainPluginDir());
    ComputeDomainState state =
        new ComputeDomainState(
            settings.nodeName(),
            clique,
            ComputeDomainCluster.api(client, settings.nodeName()),
            settings.cdiRoot(),
            settings.computeDomainPluginDir(),
            channelsMajor(backend, settings.procDevices()),
            imexManagement(backend, settings.procDevices()));
    ComputeDomainPlugin p =
        new ComputeDomainPlugin(
            settings,
            state,
            new SlicePublisher(client, version, ComputeDomainNames.DRIVER, settings.nodeName()));
    LOG.info(
        "node {}: DRA driver {}: {}",
        settings.nodeName(),
        ComputeDomainNames.DRIVER,
        clique.isEmpty()
            ? "no GPU is in an NVLink fabric clique, no IMEX channel to offer"
            : "NVLink fabric clique " + clique);
    p.publish();
    DraPluginService service = new DraPluginService(state, ClaimReader.api(client, version));
    p.pluginServer =
        UnixSockets.serve(
            settings.computeDomainPluginSocket(),
            handlers,
            DraPluginAgent.v1(service),
            DraServices.v1beta1(service));
    p.registration =
        new PluginRegistrationService(
            ComputeDomainNames.DRIVER, settings.computeDomainPluginSocket());
    p.registrationServer =
        UnixSockets.serve(settings.computeDomainRegistrationSocket(), p.registration);
    return p;
  }

  /** Publishes the pool (again, when the first try failed); true once it is on the server. */
  boolean publish() {
    if (published) {
      return true;
    }
    try {
      publisher.publish(state.devices());
      published = true;
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: publishing the {} ResourceSlice failed (retrying): {}",
          settings.nodeName(),
          ComputeDomainNames.DRIVER,
          e.toString());
    }
    return published;
  }

  /** True once the pool is published and the sockets serve. */
  boolean ready() {
    return published && registrationServer != null && !registrationServer.isShutdown();
  }

  /** The driver's claims on this node. */
  ComputeDomainState state() {
    return state;
  }

  @Override
  public void close() {
    if (registrationServer != null) {
      registrationServer.shutdownNow();
      DraPluginAgent.deleteQuietly(settings.computeDomainRegistrationSocket());
    }
    if (pluginServer != null) {
      pluginServer.shutdownNow();
      DraPluginAgent.deleteQuietly(settings.computeDomainPluginSocket());
    }
  }

  /**
   * The major of {@code nvidia-caps-imex-channels}, as NVIDIA's plugin reads it, from the kernel's
   * device list; a simulated node's is the simulated driver's list.
   */
  static Supplier<Integer> channelsMajor(GpuBackend backend, Path procDevices) {
    return () -> {
      String text;
      if (backend instanceof SimulatedBackend) {
        text = SimulatedBackend.PROC_DEVICES;
      } else {
        try {
          text = Files.readString(procDevices);
        } catch (IOException e) {
          throw new IllegalStateException("cannot read " + procDevices + ": " + e.getMessage(), e);
        }
      }
      Integer major = CharacterDevices.parse(text).get(ComputeDomainNames.CHANNELS_DEVICE);
      if (major == null) {
        throw new IllegalStateException(
            procDevices
                + " lists no character device "
                + ComputeDomainNames.CHANNELS_DEVICE
                + ": the NVIDIA driver loaded here creates no IMEX channels");
      }
      return major;
    };
  }

  /**
   * The {@code fabric-imex-mgmt} capability device, as NVIDIA's plugin reads it: {@code
   * /proc/driver/nvidia/capabilities/fabric-imex-mgmt} beside the device list ({@code /proc}); a
   * simulated node's is the simulated driver's.
   */
  static Supplier<ImexManagementDevice> imexManagement(GpuBackend backend, Path procDevices) {
    return () -> {
      Path capability = procDevices.resolveSibling(ImexManagementDevice.CAPABILITY_FILE);
      if (backend instanceof SimulatedBackend) {
        return ImexManagementDevice.parse(
            capability.toString(),
            SimulatedBackend.IMEX_MANAGEMENT_CAPABILITY,
            procDevices.toString(),
            SimulatedBackend.PROC_DEVICES);
      }
      try {
        return ImexManagementDevice.parse(
            capability.toString(),
            Files.readString(capability),
            procDevices.toString(),
            Files.readString(procDevices));
      } catch (IOException e) {
        throw new IllegalStateException(
            "cannot read "
                + e.getMessage()
                + " (the IMEX daemon needs the driver's "
                + ImexManagementDevice.CAPABILITY
                + " capability)",
            e);
      }
    };
  }
}
