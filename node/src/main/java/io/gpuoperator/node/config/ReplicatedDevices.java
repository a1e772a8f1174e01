package io.gpuoperator.node.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code devices:} of a replicated resource: {@code all}, a count, or a list of indices and
 * UUIDs ({@code "0"}, {@code "1:0"}, {@code GPU-...}, {@code MIG-...}).
 *
 * @param all every device
 * @param count the first n devices (0 when not used)
 * @param ids explicit ids (empty when not used)
 */
public record ReplicatedDevices(boolean all, int count, List<String> ids) {
  /** Every device. */
  public static final ReplicatedDevices ALL = new ReplicatedDevices(true, 0, List.of());

  /** Accepts the three YAML forms and rejects anything else with the expected forms. */
  public static final class Deserializer extends JsonDeserializer<ReplicatedDevices> {
    @Override
    public ReplicatedDevices deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      JsonToken t = p.currentToken();
      if (t == JsonToken.VALUE_STRING && p.getText().equals("all")) {
        return ALL;
      }
      if (t == JsonToken.VALUE_NUMBER_INT && p.getIntValue() > 0) {
        return new ReplicatedDevices(false, p.getIntValue(), List.of());
      }
      if (t == JsonToken.START_ARRAY) {
        List<String> ids = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          String id = p.getValueAsString();
          if (id == null || !id.matches("\\d+(:\\d+)?|GPU-.+|MIG-.+")) {
            return ctxt.reportInputMismatch(
                ReplicatedDevices.class,
                "devices: unsupported device id '%s' (expected an index like 0 or 1:0, or a"
                    + " GPU-/MIG- UUID)",
                p.getText());
          }
          ids.add(id);
        }
        return new ReplicatedDevices(false, 0, List.copyOf(ids));
      }
      return ctxt.reportInputMismatch(
          ReplicatedDevices.class,
          "devices: expected 'all', a positive count, or a list of device ids; got '%s'",
          p.getText());
    }
  }
}
