package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.gpuoperator.node.gpu.GpuFabric;
import io.gpuoperator.node.gpu.GpuLink;
import io.gpuoperator.node.gpu.TopologyLevel;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;

/**
 * How GPUs are connected, through NVML for {@link NvmlBackend}: the PCIe common ancestor of two
 * GPUs and how many NVLinks join them, directly or through NVSwitches; and the multi-node NVLink
 * fabric (cluster and clique) a GPU is registered in.
 */
final class NvmlTopology extends NvmlConcern {
  private static final int NVML_NVLINK_MAX_LINKS = 18;
  private static final int NVML_NVLINK_DEVICE_TYPE_SWITCH = 2;

  NvmlTopology(NvmlSession session, NvmlGpus gpus) {
    super(session, gpus);
  }

  GpuLink link(int gpuA, int gpuB) {
    Pointer a = gpus.handle(gpuA);
    Pointer b = gpus.handle(gpuB);
    if (gpuA == gpuB) {
      return new GpuLink(gpuA, gpuB, TopologyLevel.INTERNAL, 0);
    }
    IntByReference level = new IntByReference();
    session.check(
        nvml.nvmlDeviceGetTopologyCommonAncestor(a, b, level),
        "nvmlDeviceGetTopologyCommonAncestor");
    String busB = gpus.device(gpuB).pciBusId();
    int direct = 0;
    int switchA = 0;
    for (int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
      Integer remote = nvlinkRemote(a, link, busB);
      if (remote == null) {
        break;
      }
      if (remote == 1) {
        direct++;
      } else if (remote == 2) {
        switchA++;
      }
    }
    int switchB = 0;
    if (switchA > 0) {
      for (int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        Integer remote = nvlinkRemote(b, link, "");
        if (remote == null) {
          break;
        }
        if (remote == 2) {
          switchB++;
        }
      }
    }
    // Through NVSwitch every pair is fully connected: count the links both sides have.
    return new GpuLink(
        gpuA, gpuB, TopologyLevel.ofNvml(level.getValue()), direct + Math.min(switchA, switchB));
  }

  /**
   * The fabric the GPU is registered in, by go-nvlib's {@code IsFabricAttached} rules that NVIDIA's
   * DRA driver and GPU feature discovery both use: none where the driver lacks the call or the GPU
   * does not support it, where registration has not completed (a fabric manager still starting),
   * where it completed with an error status, and where the cluster UUID is zero (NVLink-capable but
   * not multi-node). Any other failure of the call is an error, as theirs.
   */
  Optional<GpuFabric> fabric(int gpu) {
    Pointer h = gpus.handle(gpu);
    Memory info = Struct.GPU_FABRIC_INFO.allocate();
    int rc;
    try {
      rc = nvml.nvmlDeviceGetGpuFabricInfo(h, info);
    } catch (UnsatisfiedLinkError e) {
      return Optional.empty(); // a driver older than R525: no fabric API, no fabric
    }
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return Optional.empty();
    }
    session.check(rc, "nvmlDeviceGetGpuFabricInfo");
    int state = info.getByte(Field.FABRIC_STATE.offset) & 0xff;
    byte[] uuid =
        info.getByteArray(Field.FABRIC_CLUSTER_UUID.offset, NvmlStructs.GPU_FABRIC_UUID_LEN);
    if (state != NvmlStructs.GPU_FABRIC_STATE_COMPLETED
        || Field.FABRIC_STATUS.getInt(info) != NvmlSession.SUCCESS
        || Arrays.equals(uuid, new byte[uuid.length])) {
      return Optional.empty();
    }
    ByteBuffer bytes = ByteBuffer.wrap(uuid); // big-endian: the UUID's bytes in order
    String cluster = new UUID(bytes.getLong(), bytes.getLong()).toString();
    return Optional.of(
        new GpuFabric(cluster, Integer.toUnsignedLong(Field.FABRIC_CLIQUE_ID.getInt(info))));
  }

  /** null: no more links (or no NVLink); 0 inactive/other; 1 to the peer; 2 to an NVSwitch. */
  private Integer nvlinkRemote(Pointer dev, int link, String peerBusId) {
    IntByReference active = new IntByReference();
    int rc = nvml.nvmlDeviceGetNvLinkState(dev, link, active);
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED || rc == NvmlSession.ERROR_INVALID_ARGUMENT) {
      return null;
    }
    session.check(rc, "nvmlDeviceGetNvLinkState");
    if (active.getValue() == 0) {
      return 0;
    }
    IntByReference type = new IntByReference(-1);
    if (nvml.nvmlDeviceGetNvLinkRemoteDeviceType(dev, link, type) == NvmlSession.SUCCESS
        && type.getValue() == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
      return 2;
    }
    Memory pci = Struct.PCI_INFO.allocate();
    session.check(
        nvml.nvmlDeviceGetNvLinkRemotePciInfo_v2(dev, link, pci),
        "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    return NvmlStructs.pciBusId(pci).equalsIgnoreCase(peerBusId) ? 1 : 0;
  }
}
