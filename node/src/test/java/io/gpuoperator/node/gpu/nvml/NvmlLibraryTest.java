package io.gpuoperator.node.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.ptr.IntByReference;
import io.gpuoperator.node.gpu.GpuBackendException;
import io.gpuoperator.node.gpu.GpuError;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Component test against the real {@code libnvidia-ml.so.1} from Debian non-free (fetched by
 * scripts/test-deps.sh; path in {@code -Dgpu-operator.nvml.lib}). This machine has no GPU, so it
 * checks the binding, not the hardware.
 */
class NvmlLibraryTest {
  static Path lib;

  @BeforeAll
  static void library() {
    String prop = System.getProperty("gpu-operator.nvml.lib", "");
    lib = prop.isEmpty() ? null : Path.of(prop);
    Assumptions.assumeTrue(
        lib != null && Files.exists(lib),
        "libnvidia-ml.so.1 not found at '"
            + prop
            + "': scripts/test-deps.sh fetches it from Debian non-free (it could not be fetched)");
  }

  @Test
  void everyDeclaredFunctionResolvesInTheRealLibrary() {
    NativeLibrary native_ = NativeLibrary.getInstance(lib.toAbsolutePath().toString());
    List<String> missing = new ArrayList<>();
    Method[] methods = NvmlLibrary.class.getDeclaredMethods();
    for (Method m : methods) {
      try {
        native_.getFunction(m.getName());
      } catch (UnsatisfiedLinkError e) {
        missing.add(m.getName());
      }
    }
    assertThat(methods.length).isGreaterThan(55);
    assertThat(missing).as("functions missing from %s", lib).isEmpty();
  }

  @Test
  void initWithoutADriverFailsWithDriverNotLoaded() {
    assertThatThrownBy(() -> NvmlBackend.open(lib, Path.of("/sys")))
        .isInstanceOf(GpuBackendException.DriverNotLoaded.class)
        .hasMessageContaining("nvmlInit_v2: Driver Not Loaded")
        .hasMessageContaining("NVIDIA driver not loaded")
        .satisfies(e -> assertThat(((GpuBackendException) e).error().code()).isEqualTo(9));
  }

  @Test
  void everyReturnCodeMapsToItsTypedExceptionWithNvmlsText() {
    NvmlLibrary nvml = NvmlBackend.load(lib);
    IntByReference count = new IntByReference();
    int rc = nvml.nvmlDeviceGetCount_v2(count);
    GpuBackendException e = NvmlSession.exception(nvml, rc, "nvmlDeviceGetCount_v2");
    assertThat(e).isInstanceOf(GpuBackendException.Uninitialized.class);
    assertThat(e).hasMessage("nvmlDeviceGetCount_v2: Uninitialized");
    for (GpuError error : GpuError.values()) {
      GpuBackendException ex = NvmlSession.exception(nvml, error.code(), "call");
      assertThat(ex.error()).isEqualTo(error);
      String simpleName = ex.getClass().getSimpleName();
      assertThat(simpleName.toUpperCase().replace("_", ""))
          .isEqualTo(error.name().replace("_", ""));
      assertThat(ex.getMessage()).startsWith("call: ").hasSizeGreaterThan("call: ".length());
    }
    assertThat(NvmlSession.exception(nvml, 9, "x").getMessage()).isEqualTo("x: Driver Not Loaded");
    assertThat(nvml.nvmlShutdown()).isZero(); // harmless without init: no crash
  }

  /**
   * The fabric call NVIDIA's DRA driver and GFD make is exported by the 535 driver (R535 has no
   * {@code nvmlDeviceGetGpuFabricInfoV}) and answers before NVML is initialised without touching
   * the struct.
   */
  @Test
  void theFabricCallIsExportedAndAnswersUninitialised() {
    NvmlLibrary nvml = NvmlBackend.load(lib);
    Memory info = NvmlStructs.Struct.GPU_FABRIC_INFO.allocate();
    assertThat(nvml.nvmlDeviceGetGpuFabricInfo(null, info))
        .isEqualTo(GpuError.UNINITIALIZED.code());
    assertThat(info.getByteArray(0, NvmlStructs.Struct.GPU_FABRIC_INFO.size))
        .containsOnly((byte) 0);
  }

  @Test
  void aMissingLibraryIsATypedError() {
    assertThatThrownBy(
            () -> NvmlBackend.open(Path.of("/nonexistent/libnvidia-ml.so.1"), Path.of("/sys")))
        .isInstanceOf(GpuBackendException.LibraryNotFound.class)
        .hasMessageContaining("/nonexistent/libnvidia-ml.so.1");
  }
}
