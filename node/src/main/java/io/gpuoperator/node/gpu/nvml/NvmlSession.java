package io.gpuoperator.node.gpu.nvml;

import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuError;

/**
 * An initialised NVML shared by the parts of {@link NvmlBackend}: the binding, the rule that every
 * non-success return code becomes the typed {@link GpuBackendException} with NVML's own text, and
 * whether the session was shut down (after which no call may reach the library).
 */
final class NvmlSession {
  static final int SUCCESS = 0;
  static final int ERROR_INVALID_ARGUMENT = 2;
  static final int ERROR_NOT_SUPPORTED = 3;
  static final int ERROR_NOT_FOUND = 6;
  static final int ERROR_TIMEOUT = 10;

  /** Large enough for every string NVML returns (names, UUIDs). */
  private static final int BUFFER = 96;

  private final NvmlLibrary nvml;
  private volatile boolean closed;

  NvmlSession(NvmlLibrary nvml) {
    this.nvml = nvml;
  }

  NvmlLibrary nvml() {
    return nvml;
  }

  /** Throws the typed exception of a return code; {@code what} says which call failed. */
  void check(int rc, String what) {
    if (rc != SUCCESS) {
      throw exception(nvml, rc, what);
    }
  }

  /** The typed exception of an NVML return code, with NVML's own text for it. */
  static GpuBackendException exception(NvmlLibrary nvml, int rc, String what) {
    return GpuBackendException.of(GpuError.ofCode(rc), what + ": " + nvml.nvmlErrorString(rc));
  }

  /** A call that fills a C string buffer. */
  @FunctionalInterface
  interface StringCall {
    int call(byte[] buf, int length);
  }

  String string(StringCall c, String what) {
    byte[] buf = new byte[BUFFER];
    check(c.call(buf, buf.length), what);
    return NvmlStructs.cString(buf);
  }

  /** Fails every use of a device handle after {@link #shutdown}: NVML would answer garbage. */
  void requireOpen() {
    if (closed) {
      throw new GpuBackendException.Uninitialized("NVML was shut down", null);
    }
  }

  void shutdown() {
    if (!closed) {
      closed = true;
      nvml.nvmlShutdown();
    }
  }
}
