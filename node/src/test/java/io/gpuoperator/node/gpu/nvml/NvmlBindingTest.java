package io.gpuoperator.node.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the JNA binding against NVIDIA's own {@code nvml.h} (Debian trixie's libnvidia-ml-dev
 * 12.4, fetched by scripts/test-deps.sh; path in {@code -Dgpu-operator.nvml.header}; bookworm's
 * 11.8 predates the fabric API): every struct size and field offset the backend uses, and every
 * bound function's parameter list.
 */
class NvmlBindingTest {
  static NvmlHeader header;

  @BeforeAll
  static void read() throws Exception {
    String prop = System.getProperty("gpu-operator.nvml.header", "");
    Path file = prop.isEmpty() ? null : Path.of(prop);
    Assumptions.assumeTrue(
        file != null && Files.exists(file),
        "nvml.h not found at '"
            + prop
            + "': scripts/test-deps.sh fetches it from Debian non-free (it could not be fetched)");
    header = new NvmlHeader(Files.readString(file));
  }

  @Test
  void structSizesAndOffsetsMatchTheHeader() {
    for (NvmlStructs.Struct s : NvmlStructs.Struct.values()) {
      assertThat(header.layout(s.cName).size()).as("sizeof(%s)", s.cName).isEqualTo(s.size);
    }
    for (NvmlStructs.Field f : NvmlStructs.Field.values()) {
      assertThat(header.layout(f.struct.cName).offsets())
          .as("offsetof(%s, %s)", f.struct.cName, f.cName)
          .containsEntry(f.cName, f.offset);
    }
    assertThat(NvmlStructs.MEMORY_V2_VERSION)
        .isEqualTo(header.layout("nvmlMemory_v2_t").size() | (2 << 24));
  }

  /**
   * The GPM metric ids, field ids, enum values and struct versions the profiling code sends are
   * nvml.h's, and the metrics-get struct holds the header's NVML_GPM_METRIC_MAX metrics (its size
   * and offsets are in the struct check above).
   */
  @Test
  void profilingIdsAndVersionsMatchTheHeader() {
    for (NvmlProfiling.Gpm g : NvmlProfiling.Gpm.values()) {
      assertThat(header.constant(g.cName())).as(g.cName()).isEqualTo(g.id);
    }
    assertThat(header.constant("NVML_GPM_SUPPORT_VERSION"))
        .isEqualTo(NvmlStructs.GPM_SUPPORT_VERSION);
    assertThat(header.constant("NVML_GPM_METRICS_GET_VERSION"))
        .isEqualTo(NvmlStructs.GPM_METRICS_GET_VERSION);
    assertThat(header.constant("NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX"))
        .isEqualTo(NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_TX);
    assertThat(header.constant("NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX"))
        .isEqualTo(NvmlStructs.FI_DEV_NVLINK_THROUGHPUT_DATA_RX);
    assertThat(header.constant("NVML_FI_DEV_MEMORY_TEMP"))
        .isEqualTo(NvmlStructs.FI_DEV_MEMORY_TEMP);
    assertThat(header.constant("NVML_NVLINK_MAX_LINKS")).isEqualTo(NvmlStructs.NVLINK_MAX_LINKS);
    assertThat(header.constant("NVML_PCIE_UTIL_TX_BYTES"))
        .isEqualTo(NvmlStructs.PCIE_UTIL_TX_BYTES);
    assertThat(header.constant("NVML_PCIE_UTIL_RX_BYTES"))
        .isEqualTo(NvmlStructs.PCIE_UTIL_RX_BYTES);
    assertThat(header.constant("NVML_VALUE_TYPE_DOUBLE")).isEqualTo(NvmlStructs.VALUE_TYPE_DOUBLE);
    assertThat(header.constant("NVML_VALUE_TYPE_UNSIGNED_INT"))
        .isEqualTo(NvmlStructs.VALUE_TYPE_UNSIGNED_INT);
    assertThat(header.constant("NVML_VALUE_TYPE_UNSIGNED_LONG_LONG"))
        .isEqualTo(NvmlStructs.VALUE_TYPE_UNSIGNED_LONG_LONG);
    assertThat(NvmlStructs.Struct.GPM_METRICS_GET.size)
        .isEqualTo(
            NvmlStructs.Field.GPM_GET_METRICS.offset
                + header.constant("NVML_GPM_METRIC_MAX") * NvmlStructs.Struct.GPM_METRIC.size);
    // The nested metricInfo (three name/unit pointers) after the double value.
    assertThat(header.layout("nvmlGpmMetric_t").offsets()).containsEntry("metricInfo", 16);
  }

  /**
   * The fabric info's constants are nvml.h's, and its state is one byte (read as one: the three
   * bytes after it are padding).
   */
  @Test
  void fabricConstantsMatchTheHeader() {
    Map<String, Integer> ours =
        Map.of(
            "NVML_GPU_FABRIC_UUID_LEN", NvmlStructs.GPU_FABRIC_UUID_LEN,
            "NVML_GPU_FABRIC_STATE_NOT_SUPPORTED", NvmlStructs.GPU_FABRIC_STATE_NOT_SUPPORTED,
            "NVML_GPU_FABRIC_STATE_NOT_STARTED", NvmlStructs.GPU_FABRIC_STATE_NOT_STARTED,
            "NVML_GPU_FABRIC_STATE_IN_PROGRESS", NvmlStructs.GPU_FABRIC_STATE_IN_PROGRESS,
            "NVML_GPU_FABRIC_STATE_COMPLETED", NvmlStructs.GPU_FABRIC_STATE_COMPLETED);
    ours.forEach((name, value) -> assertThat(header.constant(name)).as(name).isEqualTo(value));
    assertThat(header.scalarSize("nvmlGpuFabricState_t")).isEqualTo(1);
    assertThat(header.functions.get("nvmlDeviceGetGpuFabricInfo").params())
        .containsExactly("nvmlDevice_t", "nvmlGpuFabricInfo_t *");
  }

  @Test
  void everyBoundFunctionHasTheHeadersParameters() {
    List<String> problems = new ArrayList<>();
    for (Method m : NvmlLibrary.class.getDeclaredMethods()) {
      NvmlHeader.Prototype p = header.functions.get(m.getName());
      if (p == null) {
        problems.add(m.getName() + ": not declared in nvml.h");
        continue;
      }
      Class<?>[] java = m.getParameterTypes();
      if (java.length != p.params().size()) {
        problems.add(m.getName() + ": " + java.length + " parameters, nvml.h has " + p.params());
        continue;
      }
      for (int i = 0; i < java.length; i++) {
        String c = p.params().get(i);
        if (!compatible(java[i], c)) {
          problems.add(
              m.getName() + " parameter " + i + ": " + java[i].getSimpleName() + " vs " + c);
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  private static boolean compatible(Class<?> java, String c) {
    boolean pointer = c.endsWith("*");
    String base = pointer ? c.substring(0, c.length() - 1).trim() : c;
    base = base.replace("const ", "");
    boolean fourBytes =
        base.equals("unsigned int")
            || base.equals("int")
            || header.enums.contains(base)
            || base.equals("nvmlReturn_t");
    if (java == int.class) {
      return !pointer && fourBytes;
    }
    if (java == long.class) {
      return !pointer && base.equals("unsigned long long");
    }
    if (java == Pointer.class) {
      return !pointer && header.handles.contains(base);
    }
    if (java == String.class || java == byte[].class) {
      return pointer && base.equals("char");
    }
    if (java == IntByReference.class) {
      return pointer && fourBytes;
    }
    if (java == LongByReference.class) {
      return pointer && base.equals("unsigned long long");
    }
    if (java == PointerByReference.class) {
      return pointer && header.handles.contains(base);
    }
    if (java == Memory.class) {
      // A struct, or an array of handles (e.g. nvmlGpuInstance_t *gpuInstances).
      return pointer && (header.hasStruct(base) || header.handles.contains(base));
    }
    return false;
  }
}
