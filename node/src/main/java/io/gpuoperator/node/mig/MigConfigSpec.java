package io.gpuoperator.node.mig;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.gpuoperator.node.gpu.GpuDevice;
import io.gpuoperator.node.gpu.MigProfile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One entry of a mig-parted configuration ({@code MigConfigSpec}): which GPUs it selects ({@code
 * devices}, optionally narrowed by {@code device-filter}) and the MIG state they get.
 *
 * @param devices {@code all} or GPU indices
 * @param migEnabled the MIG mode
 * @param migDevices profile name → count; empty when MIG is off (or on without devices)
 * @param deviceFilter PCI ids {@code 0x<DEVICE><VENDOR>} (upper-case hex), empty for any GPU
 */
public record MigConfigSpec(
    @JsonProperty("devices") @JsonDeserialize(using = DevicesDeserializer.class) Devices devices,
    @JsonProperty("mig-enabled") Boolean migEnabled,
    @JsonProperty("mig-devices") Map<String, Integer> migDevices,
    @JsonProperty("device-filter") @JsonDeserialize(using = FilterDeserializer.class)
        List<String> deviceFilter) {

  public MigConfigSpec {
    if (devices == null) {
      throw new IllegalArgumentException("devices: required: all or a list of GPU indices");
    }
    if (migEnabled == null) {
      throw new IllegalArgumentException("mig-enabled: required: true or false");
    }
    Map<String, Integer> md = new LinkedHashMap<>();
    if (migDevices != null) {
      for (Map.Entry<String, Integer> e : migDevices.entrySet()) {
        try {
          MigProfile.parse(e.getKey());
        } catch (IllegalArgumentException ex) {
          throw new IllegalArgumentException("mig-devices: " + ex.getMessage());
        }
        if (e.getValue() == null || e.getValue() < 0) {
          throw new IllegalArgumentException(
              "mig-devices: " + e.getKey() + ": expected a count >= 0, got " + e.getValue());
        }
        md.put(e.getKey(), e.getValue());
      }
    }
    if (!migEnabled && md.values().stream().anyMatch(n -> n > 0)) {
      throw new IllegalArgumentException(
          "mig-devices: must be empty when mig-enabled is false, got " + md);
    }
    migDevices = md;
    List<String> ids = new ArrayList<>();
    for (String id : deviceFilter == null ? List.<String>of() : deviceFilter) {
      String t = id == null ? "" : id.trim();
      if (!t.matches("(?i)0x[0-9a-f]{8}")) {
        throw new IllegalArgumentException(
            "device-filter: '"
                + id
                + "' is not a PCI id of the form 0x<DEVICE><VENDOR>, e.g. 0x233010DE");
      }
      ids.add("0x" + t.substring(2).toUpperCase(Locale.ROOT));
    }
    deviceFilter = List.copyOf(ids);
  }

  /** An entry for every GPU. */
  public static MigConfigSpec all(boolean enabled, Map<String, Integer> devices) {
    return new MigConfigSpec(Devices.ALL, enabled, devices, List.of());
  }

  /** Whether this entry selects the GPU. */
  public boolean selects(GpuDevice gpu) {
    return devices.selects(gpu.index())
        && (deviceFilter.isEmpty() || deviceFilter.contains(gpu.deviceFilterId()));
  }

  /** A short description for messages: {@code devices all, device-filter 0x233010DE}. */
  public String describe() {
    return "devices "
        + devices
        + (deviceFilter.isEmpty() ? "" : ", device-filter " + String.join(",", deviceFilter));
  }

  /**
   * {@code devices}: every GPU, or the GPUs at these indices.
   *
   * @param all every GPU
   * @param indices the GPU indices when not all
   */
  public record Devices(boolean all, List<Integer> indices) {
    public static final Devices ALL = new Devices(true, List.of());

    public Devices {
      indices = List.copyOf(indices);
    }

    public boolean selects(int index) {
      return all || indices.contains(index);
    }

    @Override
    public String toString() {
      return all ? "all" : indices.toString();
    }
  }

  /** Reads {@code all} or a list of indices. */
  static final class DevicesDeserializer extends JsonDeserializer<Devices> {
    @Override
    public Devices deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_STRING && "all".equals(p.getText())) {
        return Devices.ALL;
      }
      if (p.currentToken() == JsonToken.START_ARRAY) {
        List<Integer> out = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getIntValue() < 0) {
            return ctxt.reportInputMismatch(
                Devices.class,
                "expected all or a list of GPU indices (0, 1, ...), got %s",
                p.getText());
          }
          out.add(p.getIntValue());
        }
        return new Devices(false, out);
      }
      return ctxt.reportInputMismatch(
          Devices.class, "expected all or a list of GPU indices, got %s", p.getText());
    }
  }

  /** Reads one PCI id or a list of them. */
  static final class FilterDeserializer extends JsonDeserializer<List<String>> {
    @Override
    public List<String> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      List<String> out = new ArrayList<>();
      if (p.currentToken() == JsonToken.VALUE_STRING) {
        out.add(p.getText());
        return out;
      }
      if (p.currentToken() == JsonToken.START_ARRAY) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (p.currentToken() != JsonToken.VALUE_STRING) {
            return ctxt.reportInputMismatch(
                List.class, "expected PCI ids like \"0x233010DE\", got %s", p.getText());
          }
          out.add(p.getText());
        }
        return out;
      }
      return ctxt.reportInputMismatch(
          List.class, "expected a PCI id or a list of them, got %s", p.getText());
    }
  }
}
