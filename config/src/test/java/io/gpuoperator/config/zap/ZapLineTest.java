package io.gpuoperator.config.zap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ZapLineTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T = Instant.parse("2026-12-05T19:02:44.25Z");

  private static ZapSettings settings(ZapSettings.Encoder encoder, TimeEncoding time) {
    return new ZapSettings(false, encoder, ZapSettings.INFO, ZapSettings.ERROR, time);
  }

  private static Map<String, String> resource() {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("controllerKind", "ClusterPolicy");
    fields.put("namespace", "");
    fields.put("name", "cluster-policy");
    return fields;
  }

  @Test
  void jsonHasZapsKeysInZapsOrderWithTheirTypes() throws Exception {
    String line =
        new ZapLine(
                T,
                ZapSettings.ERROR,
                "io.gpuoperator.Reconciler",
                "apply \"failed\"\tagain",
                resource(),
                "connection refused",
                "at a.B.c(B.java:1)\nat d.E.f(E.java:2)")
            .encode(settings(ZapSettings.Encoder.JSON, TimeEncoding.EPOCH), ZoneOffset.UTC);
    assertThat(line).endsWith("}\n").doesNotContain("\n{").hasLineCount(1);
    JsonNode node = JSON.readTree(line);
    List<String> keys = new ArrayList<>();
    node.fieldNames().forEachRemaining(keys::add);
    assertThat(keys)
        .containsExactly(
            "level",
            "ts",
            "logger",
            "msg",
            "controllerKind",
            "namespace",
            "name",
            "error",
            "stacktrace");
    assertThat(node.get("level").asText()).isEqualTo("error");
    assertThat(node.get("ts").isNumber()).isTrue();
    // float64(UnixNano)/1e9, as zap computes it (Python gives the same repr).
    assertThat(line).contains("\"ts\":1796497364.2499998,");
    assertThat(node.get("msg").asText()).isEqualTo("apply \"failed\"\tagain");
    assertThat(node.get("namespace").asText()).isEmpty();
    assertThat(node.get("error").asText()).isEqualTo("connection refused");
    assertThat(node.get("stacktrace").asText()).isEqualTo("at a.B.c(B.java:1)\nat d.E.f(E.java:2)");
  }

  @Test
  void jsonWithoutContextErrorOrStackHasOnlyTheEntryKeys() throws Exception {
    String line =
        new ZapLine(T, ZapSettings.INFO, "setup", "starting", Map.of(), null, null)
            .encode(settings(ZapSettings.Encoder.JSON, TimeEncoding.RFC3339), ZoneOffset.UTC);
    assertThat(line)
        .isEqualTo(
            "{\"level\":\"info\",\"ts\":\"2026-12-05T19:02:44Z\",\"logger\":\"setup\","
                + "\"msg\":\"starting\"}\n");
  }

  @Test
  void levelNamesAsZapWritesThem() throws Exception {
    assertThat(ZapLine.levelName(-1, false)).isEqualTo("debug");
    assertThat(ZapLine.levelName(1, false)).isEqualTo("warn");
    assertThat(ZapLine.levelName(-2, false)).isEqualTo("Level(-2)");
    assertThat(ZapLine.levelName(-2, true)).isEqualTo("LEVEL(-2)");
    assertThat(ZapLine.levelName(2, true)).isEqualTo("ERROR");
  }

  @Test
  void consoleIsTabSeparatedWithASpacedJsonContextAndTheStackBelow() {
    String line =
        new ZapLine(
                T,
                ZapSettings.WARN,
                "io.gpuoperator.Reconciler",
                "retrying",
                resource(),
                "timeout",
                "at a.B.c(B.java:1)\n")
            .encode(settings(ZapSettings.Encoder.CONSOLE, TimeEncoding.ISO8601), ZoneOffset.UTC);
    assertThat(line)
        .isEqualTo(
            "2026-12-05T19:02:44.250Z\tWARN\tio.gpuoperator.Reconciler\tretrying\t"
                + "{\"controllerKind\": \"ClusterPolicy\", \"namespace\": \"\", \"name\":"
                + " \"cluster-policy\", \"error\": \"timeout\"}\n"
                + "at a.B.c(B.java:1)\n");
    assertThat(
            new ZapLine(T, ZapSettings.INFO, "setup", "up", Map.of(), null, null)
                .encode(
                    settings(ZapSettings.Encoder.CONSOLE, TimeEncoding.RFC3339), ZoneOffset.UTC))
        .isEqualTo("2026-12-05T19:02:44Z\tINFO\tsetup\tup\n");
  }
}
