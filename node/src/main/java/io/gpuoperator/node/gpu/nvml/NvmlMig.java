package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.ComputeInstance;
import io.gpuoperator.node.gpu.ComputeInstanceProfile;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.GpuInstance;
import io.gpuoperator.node.gpu.GpuInstanceProfile;
import io.gpuoperator.node.gpu.MigAttributes;
import io.gpuoperator.node.gpu.MigDevice;
import io.gpuoperator.node.gpu.MigMode;
import io.gpuoperator.node.gpu.MigProfile;
import io.gpuoperator.node.gpu.Placement;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MIG through NVML for {@link NvmlBackend}: the mode, the MIG devices a GPU exposes, and the GPU
 * and compute instances mig-manager creates and destroys. Profiles a GPU does not offer (NVML
 * answers NOT_SUPPORTED or INVALID_ARGUMENT for their index) are skipped, not errors.
 */
final class NvmlMig extends NvmlConcern {

  NvmlMig(NvmlSession session, NvmlGpus gpus) {
    super(session, gpus);
  }

  MigMode migMode(int gpu) {
    IntByReference cur = new IntByReference();
    IntByReference pend = new IntByReference();
    session.check(
        nvml.nvmlDeviceGetMigMode(gpus.handle(gpu), cur, pend),
        "nvmlDeviceGetMigMode(" + gpu + ")");
    return new MigMode(cur.getValue() == 1, pend.getValue() == 1);
  }

  MigMode setMigMode(int gpu, boolean enabled) {
    IntByReference activation = new IntByReference();
    session.check(
        nvml.nvmlDeviceSetMigMode(gpus.handle(gpu), enabled ? 1 : 0, activation),
        "nvmlDeviceSetMigMode(" + gpu + ")");
    if (activation.getValue() != NvmlSession.SUCCESS) {
      session.check(activation.getValue(), "MIG mode activation on GPU " + gpu);
    }
    return migMode(gpu);
  }

  List<MigDevice> migDevices(int gpu) {
    Pointer h = gpus.handle(gpu);
    GpuDevice parent = gpus.device(gpu);
    if (!parent.migCapable() || !migMode(gpu).current()) {
      return List.of();
    }
    Map<Integer, Integer> indexById = new HashMap<>();
    for (GpuInstanceProfile p : gpuInstanceProfiles(gpu)) {
      indexById.put(p.id(), p.index());
    }
    IntByReference max = new IntByReference();
    session.check(nvml.nvmlDeviceGetMaxMigDeviceCount(h, max), "nvmlDeviceGetMaxMigDeviceCount");
    List<MigDevice> out = new ArrayList<>();
    for (int i = 0; i < max.getValue(); i++) {
      PointerByReference ref = new PointerByReference();
      int rc = nvml.nvmlDeviceGetMigDeviceHandleByIndex(h, i, ref);
      if (rc == NvmlSession.ERROR_NOT_FOUND) {
        continue;
      }
      session.check(rc, "nvmlDeviceGetMigDeviceHandleByIndex(" + gpu + ", " + i + ")");
      Pointer mig = ref.getValue();
      String uuid =
          session.string((buf, n) -> nvml.nvmlDeviceGetUUID(mig, buf, n), "nvmlDeviceGetUUID");
      IntByReference gi = new IntByReference();
      IntByReference ci = new IntByReference();
      session.check(nvml.nvmlDeviceGetGpuInstanceId(mig, gi), "nvmlDeviceGetGpuInstanceId");
      session.check(nvml.nvmlDeviceGetComputeInstanceId(mig, ci), "nvmlDeviceGetComputeInstanceId");
      Memory attrs = Struct.ATTRIBUTES.allocate();
      session.check(nvml.nvmlDeviceGetAttributes_v2(mig, attrs), "nvmlDeviceGetAttributes_v2");
      MigAttributes a = NvmlStructs.attributes(attrs);
      Pointer giHandle = gpuInstanceHandle(h, gi.getValue());
      Memory giInfo = Struct.GI_INFO.allocate();
      session.check(nvml.nvmlGpuInstanceGetInfo(giHandle, giInfo), "nvmlGpuInstanceGetInfo");
      int giProfileId = Field.GI_PROFILE_ID.getInt(giInfo);
      Memory ciInfo = Struct.CI_INFO.allocate();
      PointerByReference ciRef = new PointerByReference();
      session.check(
          nvml.nvmlGpuInstanceGetComputeInstanceById(giHandle, ci.getValue(), ciRef),
          "nvmlGpuInstanceGetComputeInstanceById");
      session.check(
          nvml.nvmlComputeInstanceGetInfo_v2(ciRef.getValue(), ciInfo),
          "nvmlComputeInstanceGetInfo_v2");
      int giIndex = indexById.getOrDefault(giProfileId, -1);
      MigProfile profile =
          new MigProfile(
              a.computeInstanceSliceCount(),
              a.gpuInstanceSliceCount(),
              MigProfile.memoryGb(a.memorySizeMb(), parent.memoryTotalBytes()),
              a.computeInstanceSliceCount() == a.gpuInstanceSliceCount()
                  ? NvmlStructs.profileSuffix(giIndex)
                  : "");
      out.add(
          new MigDevice(
              gpu,
              parent.uuid(),
              i,
              uuid,
              gi.getValue(),
              ci.getValue(),
              giProfileId,
              Field.CI_PROFILE_ID.getInt(ciInfo),
              profile,
              a,
              NvmlStructs.placement(giInfo, Field.GI_PLACEMENT.offset)));
    }
    return out;
  }

  private Pointer gpuInstanceHandle(Pointer device, int giId) {
    PointerByReference ref = new PointerByReference();
    session.check(
        nvml.nvmlDeviceGetGpuInstanceById(device, giId, ref),
        "nvmlDeviceGetGpuInstanceById(" + giId + ")");
    return ref.getValue();
  }

  List<GpuInstanceProfile> gpuInstanceProfiles(int gpu) {
    Pointer h = gpus.handle(gpu);
    List<GpuInstanceProfile> out = new ArrayList<>();
    for (int idx = 0; idx < NvmlStructs.GI_PROFILE_INDEX_COUNT; idx++) {
      Memory info = Struct.GI_PROFILE_INFO.allocate();
      int rc = nvml.nvmlDeviceGetGpuInstanceProfileInfo(h, idx, info);
      if (rc == NvmlSession.ERROR_NOT_SUPPORTED || rc == NvmlSession.ERROR_INVALID_ARGUMENT) {
        continue;
      }
      session.check(rc, "nvmlDeviceGetGpuInstanceProfileInfo(" + gpu + ", " + idx + ")");
      out.add(NvmlStructs.giProfile(info, idx, gpus.device(gpu).memoryTotalBytes()));
    }
    return out;
  }

  List<Placement> gpuInstancePossiblePlacements(int gpu, int profileId) {
    Memory buf = Struct.GI_PLACEMENT.allocate(32);
    IntByReference count = new IntByReference(32);
    session.check(
        nvml.nvmlDeviceGetGpuInstancePossiblePlacements_v2(gpus.handle(gpu), profileId, buf, count),
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    List<Placement> out = new ArrayList<>();
    for (int i = 0; i < count.getValue(); i++) {
      out.add(NvmlStructs.placement(buf, (long) i * Struct.GI_PLACEMENT.size));
    }
    return out;
  }

  int gpuInstanceRemainingCapacity(int gpu, int profileId) {
    IntByReference count = new IntByReference();
    session.check(
        nvml.nvmlDeviceGetGpuInstanceRemainingCapacity(gpus.handle(gpu), profileId, count),
        "nvmlDeviceGetGpuInstanceRemainingCapacity");
    return count.getValue();
  }

  List<GpuInstance> gpuInstances(int gpu) {
    Pointer h = gpus.handle(gpu);
    List<GpuInstance> out = new ArrayList<>();
    for (GpuInstanceProfile p : gpuInstanceProfiles(gpu)) {
      Memory buf = NvmlStructs.zeroed(Native.POINTER_SIZE * 32);
      IntByReference count = new IntByReference(32);
      session.check(
          nvml.nvmlDeviceGetGpuInstances(h, p.id(), buf, count), "nvmlDeviceGetGpuInstances");
      for (int i = 0; i < count.getValue(); i++) {
        out.add(gpuInstanceInfo(gpu, buf.getPointer((long) i * Native.POINTER_SIZE)));
      }
    }
    out.sort(Comparator.comparingInt(GpuInstance::id));
    return out;
  }

  private GpuInstance gpuInstanceInfo(int gpu, Pointer gi) {
    Memory info = Struct.GI_INFO.allocate();
    session.check(nvml.nvmlGpuInstanceGetInfo(gi, info), "nvmlGpuInstanceGetInfo");
    return new GpuInstance(
        gpu,
        Field.GI_ID.getInt(info),
        Field.GI_PROFILE_ID.getInt(info),
        NvmlStructs.placement(info, Field.GI_PLACEMENT.offset));
  }

  GpuInstance createGpuInstance(int gpu, int profileId) {
    PointerByReference gi = new PointerByReference();
    session.check(
        nvml.nvmlDeviceCreateGpuInstance(gpus.handle(gpu), profileId, gi),
        "nvmlDeviceCreateGpuInstance");
    return gpuInstanceInfo(gpu, gi.getValue());
  }

  GpuInstance createGpuInstance(int gpu, int profileId, Placement placement) {
    Memory p = NvmlStructs.placement(placement);
    PointerByReference gi = new PointerByReference();
    session.check(
        nvml.nvmlDeviceCreateGpuInstanceWithPlacement(gpus.handle(gpu), profileId, p, gi),
        "nvmlDeviceCreateGpuInstanceWithPlacement");
    return gpuInstanceInfo(gpu, gi.getValue());
  }

  void destroyGpuInstance(int gpu, int gpuInstanceId) {
    session.check(
        nvml.nvmlGpuInstanceDestroy(gpuInstanceHandle(gpus.handle(gpu), gpuInstanceId)),
        "nvmlGpuInstanceDestroy(" + gpuInstanceId + ")");
  }

  List<ComputeInstanceProfile> computeInstanceProfiles(int gpu, int gpuInstanceId) {
    Pointer gi = gpuInstanceHandle(gpus.handle(gpu), gpuInstanceId);
    List<ComputeInstanceProfile> out = new ArrayList<>();
    for (int idx = 0; idx < NvmlStructs.CI_PROFILE_INDEX_COUNT; idx++) {
      Memory m = Struct.CI_PROFILE_INFO.allocate();
      int rc = nvml.nvmlGpuInstanceGetComputeInstanceProfileInfo(gi, idx, 0, m);
      if (rc == NvmlSession.ERROR_NOT_SUPPORTED || rc == NvmlSession.ERROR_INVALID_ARGUMENT) {
        continue;
      }
      session.check(rc, "nvmlGpuInstanceGetComputeInstanceProfileInfo");
      out.add(NvmlStructs.ciProfile(m, idx));
    }
    return out;
  }

  List<ComputeInstance> computeInstances(int gpu, int gpuInstanceId) {
    Pointer gi = gpuInstanceHandle(gpus.handle(gpu), gpuInstanceId);
    List<ComputeInstance> out = new ArrayList<>();
    for (ComputeInstanceProfile p : computeInstanceProfiles(gpu, gpuInstanceId)) {
      Memory buf = NvmlStructs.zeroed(Native.POINTER_SIZE * 16);
      IntByReference count = new IntByReference(16);
      session.check(
          nvml.nvmlGpuInstanceGetComputeInstances(gi, p.id(), buf, count),
          "nvmlGpuInstanceGetComputeInstances");
      for (int i = 0; i < count.getValue(); i++) {
        out.add(
            computeInstanceInfo(
                gpu, gpuInstanceId, buf.getPointer((long) i * Native.POINTER_SIZE)));
      }
    }
    out.sort(Comparator.comparingInt(ComputeInstance::id));
    return out;
  }

  private ComputeInstance computeInstanceInfo(int gpu, int giId, Pointer ci) {
    Memory info = Struct.CI_INFO.allocate();
    session.check(nvml.nvmlComputeInstanceGetInfo_v2(ci, info), "nvmlComputeInstanceGetInfo_v2");
    return new ComputeInstance(
        gpu, giId, Field.CI_ID.getInt(info), Field.CI_PROFILE_ID.getInt(info));
  }

  ComputeInstance createComputeInstance(int gpu, int gpuInstanceId, int profileId) {
    Pointer gi = gpuInstanceHandle(gpus.handle(gpu), gpuInstanceId);
    PointerByReference ci = new PointerByReference();
    session.check(
        nvml.nvmlGpuInstanceCreateComputeInstance(gi, profileId, ci),
        "nvmlGpuInstanceCreateComputeInstance");
    return computeInstanceInfo(gpu, gpuInstanceId, ci.getValue());
  }

  void destroyComputeInstance(int gpu, int gpuInstanceId, int computeInstanceId) {
    Pointer gi = gpuInstanceHandle(gpus.handle(gpu), gpuInstanceId);
    PointerByReference ci = new PointerByReference();
    session.check(
        nvml.nvmlGpuInstanceGetComputeInstanceById(gi, computeInstanceId, ci),
        "nvmlGpuInstanceGetComputeInstanceById(" + computeInstanceId + ")");
    session.check(nvml.nvmlComputeInstanceDestroy(ci.getValue()), "nvmlComputeInstanceDestroy");
  }
}
