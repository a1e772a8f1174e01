package io.gpuoperator.node.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuoperator.node.gpu.AbstractGpuEventSubscription;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuEvent;
import io.gpuoperator.node.gpu.GpuEventSubscription;
import io.gpuoperator.node.gpu.GpuEventType;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Field;
import io.gpuoperator.node.gpu.nvml.NvmlStructs.Struct;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * GPU health events (XIDs, ECC, clock changes ...) through an NVML event set for {@link
 * NvmlBackend}: which kinds each GPU supports, and one subscription over every GPU that supports a
 * wanted kind. GPUs that support none are reported, not errors: the device plugin decides what that
 * means.
 */
final class NvmlEvents extends NvmlConcern {

  NvmlEvents(NvmlSession session, NvmlGpus gpus) {
    super(session, gpus);
  }

  Set<GpuEventType> supportedEvents(int gpu) {
    LongByReference mask = new LongByReference();
    int rc = nvml.nvmlDeviceGetSupportedEventTypes(gpus.handle(gpu), mask);
    if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
      return EnumSet.noneOf(GpuEventType.class);
    }
    session.check(rc, "nvmlDeviceGetSupportedEventTypes");
    Set<GpuEventType> out = EnumSet.noneOf(GpuEventType.class);
    for (GpuEventType t : GpuEventType.values()) {
      if ((mask.getValue() & t.mask()) != 0) {
        out.add(t);
      }
    }
    return out;
  }

  GpuEventSubscription subscribe(Set<GpuEventType> types) {
    PointerByReference set = new PointerByReference();
    session.check(nvml.nvmlEventSetCreate(set), "nvmlEventSetCreate");
    long wanted = types.stream().mapToLong(GpuEventType::mask).reduce(0, (x, y) -> x | y);
    List<Integer> registered = new ArrayList<>();
    List<Integer> unsupported = new ArrayList<>();
    Map<Long, Integer> byHandle = new HashMap<>();
    for (int i = 0; i < gpus.count(); i++) {
      Pointer h = gpus.handle(i);
      byHandle.put(Pointer.nativeValue(h), i);
      long mask = 0;
      for (GpuEventType t : supportedEvents(i)) {
        mask |= t.mask();
      }
      mask &= wanted;
      if (mask == 0) {
        unsupported.add(i);
        continue;
      }
      int rc = nvml.nvmlDeviceRegisterEvents(h, mask, set.getValue());
      if (rc == NvmlSession.ERROR_NOT_SUPPORTED) {
        unsupported.add(i);
        continue;
      }
      session.check(rc, "nvmlDeviceRegisterEvents(" + i + ")");
      registered.add(i);
    }
    return new NvmlEventSubscription(set.getValue(), registered, unsupported, byHandle);
  }

  private final class NvmlEventSubscription extends AbstractGpuEventSubscription {
    private final Pointer set;
    private final Map<Long, Integer> byHandle;
    private boolean freed;

    NvmlEventSubscription(
        Pointer set,
        List<Integer> registered,
        List<Integer> unsupported,
        Map<Long, Integer> byHandle) {
      super(registered, unsupported);
      this.set = set;
      this.byHandle = byHandle;
    }

    @Override
    public synchronized Optional<GpuEvent> poll(Duration timeout) {
      if (freed) {
        throw new GpuBackendException.Uninitialized("the event subscription is closed", null);
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        Memory data = Struct.EVENT_DATA.allocate();
        long left = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
        int rc = nvml.nvmlEventSetWait_v2(set, data, (int) Math.min(Integer.MAX_VALUE, left));
        if (rc == NvmlSession.ERROR_TIMEOUT) {
          return Optional.empty();
        }
        session.check(rc, "nvmlEventSetWait_v2");
        GpuEventType type = GpuEventType.ofMask(Field.EVENT_TYPE.getLong(data));
        if (type == null) {
          // A kind this build does not know (newer driver): not ours to report; keep waiting.
          if (System.nanoTime() >= deadline) {
            return Optional.empty();
          }
          continue;
        }
        int gpu = byHandle.getOrDefault(Pointer.nativeValue(NvmlStructs.eventDevice(data)), -1);
        return Optional.of(
            new GpuEvent(
                type,
                gpu,
                gpu >= 0 ? gpus.device(gpu).uuid() : "",
                Field.EVENT_DATA.getLong(data),
                Field.EVENT_GI_ID.getInt(data),
                Field.EVENT_CI_ID.getInt(data)));
      }
    }

    @Override
    public synchronized void close() {
      if (!freed) {
        freed = true;
        nvml.nvmlEventSetFree(set);
      }
    }
  }
}
