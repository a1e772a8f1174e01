package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The NVML C functions this project calls, bound by JNA to {@code libnvidia-ml.so.1}. Versioned
 * entry points are named as exported ({@code _v2}, {@code _v3}); every function returns an {@code
 * nvmlReturn_t}. Structs are passed as raw {@link Memory} and decoded by {@link NvmlStructs} with
 * the offsets of {@code nvml.h}.
 */
public interface NvmlLibrary extends Library {
  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlSystemGetCudaDriverVersion_v2(IntByReference cudaDriverVersion);

  int nvmlDeviceGetCount_v2(IntByReference deviceCount);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetMinorNumber(Pointer device, IntByReference minorNumber);

  int nvmlDeviceGetIndex(Pointer device, IntByReference index);

  int nvmlDeviceGetPciInfo_v3(Pointer device, Memory pci);

  int nvmlDeviceGetCudaComputeCapability(
      Pointer device, IntByReference major, IntByReference minor);

  int nvmlDeviceGetMemoryInfo(Pointer device, Memory memory);

  int nvmlDeviceGetMemoryInfo_v2(Pointer device, Memory memory);

  int nvmlDeviceGetUtilizationRates(Pointer device, Memory utilization);

  int nvmlDeviceGetEncoderUtilization(
      Pointer device, IntByReference utilization, IntByReference samplingPeriodUs);

  int nvmlDeviceGetDecoderUtilization(
      Pointer device, IntByReference utilization, IntByReference samplingPeriodUs);

  int nvmlDeviceGetTemperature(Pointer device, int sensorType, IntByReference temp);

  int nvmlDeviceGetPowerUsage(Pointer device, IntByReference power);

  int nvmlDeviceGetFieldValues(Pointer device, int valuesCount, Memory values);

  int nvmlDeviceGetTotalEnergyConsumption(Pointer device, LongByReference energy);

  int nvmlDeviceGetClockInfo(Pointer device, int type, IntByReference clock);

  int nvmlDeviceGetTotalEccErrors(
      Pointer device, int errorType, int counterType, LongByReference eccCounts);

  int nvmlDeviceGetPcieReplayCounter(Pointer device, IntByReference value);

  /** The old name of {@code nvmlDeviceGetCurrentClocksEventReasons}: every driver exports it. */
  int nvmlDeviceGetCurrentClocksThrottleReasons(Pointer device, LongByReference reasons);

  int nvmlDeviceGetRemappedRows(
      Pointer device,
      IntByReference corrRows,
      IntByReference uncRows,
      IntByReference isPending,
      IntByReference failureOccurred);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

  int nvmlDeviceSetMigMode(Pointer device, int mode, IntByReference activationStatus);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

  int nvmlDeviceIsMigDeviceHandle(Pointer device, IntByReference isMigDevice);

  int nvmlDeviceGetDeviceHandleFromMigDeviceHandle(Pointer migDevice, PointerByReference device);

  int nvmlDeviceGetGpuInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetComputeInstanceId(Pointer device, IntByReference id);

  int nvmlDeviceGetAttributes_v2(Pointer device, Memory attributes);

  int nvmlDeviceGetGpuInstanceProfileInfo(Pointer device, int profile, Memory info);

  int nvmlDeviceGetGpuInstancePossiblePlacements_v2(
      Pointer device, int profileId, Memory placements, IntByReference count);

  int nvmlDeviceGetGpuInstanceRemainingCapacity(
      Pointer device, int profileId, IntByReference count);

  int nvmlDeviceCreateGpuInstance(Pointer device, int profileId, PointerByReference gpuInstance);

  int nvmlDeviceCreateGpuInstanceWithPlacement(
      Pointer device, int profileId, Memory placement, PointerByReference gpuInstance);

  int nvmlDeviceGetGpuInstances(
      Pointer device, int profileId, Memory gpuInstances, IntByReference count);

  int nvmlDeviceGetGpuInstanceById(Pointer device, int id, PointerByReference gpuInstance);

  int nvmlGpuInstanceGetInfo(Pointer gpuInstance, Memory info);

  int nvmlGpuInstanceDestroy(Pointer gpuInstance);

  int nvmlGpuInstanceGetComputeInstanceProfileInfo(
      Pointer gpuInstance, int profile, int engProfile, Memory info);

  int nvmlGpuInstanceCreateComputeInstance(
      Pointer gpuInstance, int profileId, PointerByReference computeInstance);

  int nvmlGpuInstanceGetComputeInstances(
      Pointer gpuInstance, int profileId, Memory computeInstances, IntByReference count);

  int nvmlGpuInstanceGetComputeInstanceById(
      Pointer gpuInstance, int id, PointerByReference computeInstance);

  int nvmlComputeInstanceGetInfo_v2(Pointer computeInstance, Memory info);

  int nvmlComputeInstanceDestroy(Pointer computeInstance);

  int nvmlEventSetCreate(PointerByReference set);

  int nvmlEventSetFree(Pointer set);

  int nvmlDeviceGetSupportedEventTypes(Pointer device, LongByReference eventTypes);

  int nvmlDeviceRegisterEvents(Pointer device, long eventTypes, Pointer set);

  int nvmlEventSetWait_v2(Pointer set, Memory data, int timeoutms);

  int nvmlDeviceGetTopologyCommonAncestor(
      Pointer device1, Pointer device2, IntByReference pathInfo);

  int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

  int nvmlDeviceGetNvLinkRemotePciInfo_v2(Pointer device, int link, Memory pci);

  int nvmlDeviceGetNvLinkRemoteDeviceType(
      Pointer device, int link, IntByReference nvLinkDeviceType);

  int nvmlDeviceGetPcieThroughput(Pointer device, int counter, IntByReference value);

  /** Exported since R525 (nvml.h 12.x); a driver without it has no multi-node NVLink fabric. */
  int nvmlDeviceGetGpuFabricInfo(Pointer device, Memory gpuFabricInfo);

  int nvmlGpmQueryDeviceSupport(Pointer device, Memory gpmSupport);

  int nvmlGpmSampleAlloc(PointerByReference gpmSample);

  int nvmlGpmSampleFree(Pointer gpmSample);

  int nvmlGpmSampleGet(Pointer device, Pointer gpmSample);

  int nvmlGpmMetricsGet(Memory metricsGet);
}
