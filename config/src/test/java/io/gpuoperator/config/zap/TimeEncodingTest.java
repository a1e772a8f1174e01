package io.gpuoperator.config.zap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each encoding against the text zap writes for the same instant (Go's layouts, by hand). */
class TimeEncodingTest {
  /** float64(ns)/1e9 as Go's strconv.FormatFloat(f, 'f', -1, 64) writes it, for the epoch forms. */
  @ParameterizedTest(name = "{0} {1} in {2}")
  @CsvSource({
    "EPOCH,       2026-12-05T19:02:44.123456789Z, UTC,          1796497364.1234567",
    "EPOCH,       2026-12-05T19:02:44Z,           UTC,          1796497364",
    "MILLIS,      2026-12-05T19:02:44.123456789Z, UTC,          1796497364123.4568",
    "NANOS,       2026-12-05T19:02:44.123456789Z, UTC,          1796497364123456789",
    "ISO8601,     2026-12-05T19:02:44.123456789Z, UTC,          2026-12-05T19:02:44.123Z",
    "ISO8601,     2026-12-05T19:02:44.123456789Z, Europe/Paris, 2026-12-05T20:02:44.123+0100",
    "RFC3339,     2026-12-05T19:02:44.123456789Z, UTC,          2026-12-05T19:02:44Z",
    "RFC3339,     2026-12-05T19:02:44.123456789Z, Europe/Paris, 2026-12-05T20:02:44+01:00",
    "RFC3339NANO, 2026-12-05T19:02:44.123456789Z, UTC,          2026-12-05T19:02:44.123456789Z",
    "RFC3339NANO, 2026-12-05T19:02:44.5Z,         Europe/Paris, 2026-12-05T20:02:44.5+01:00",
    "RFC3339NANO, 2026-12-05T19:02:44Z,           UTC,          2026-12-05T19:02:44Z",
  })
  void encodesAsZap(TimeEncoding encoding, String instant, String zone, String expected) {
    assertThat(encoding.encode(Instant.parse(instant), ZoneId.of(zone))).isEqualTo(expected);
  }

  @Test
  void onlyTheEpochFormsAreNumbers() {
    assertThat(TimeEncoding.EPOCH.numeric()).isTrue();
    assertThat(TimeEncoding.MILLIS.numeric()).isTrue();
    assertThat(TimeEncoding.NANOS.numeric()).isTrue();
    assertThat(TimeEncoding.RFC3339.numeric()).isFalse();
    assertThat(TimeEncoding.ISO8601.numeric()).isFalse();
  }

  @Test
  void unknownValueNamesTheAcceptedOnes() {
    assertThatThrownBy(() -> TimeEncoding.parse("Unix"))
        .hasMessage(
            "invalid time-encoding value \"Unix\" (epoch, millis, nanos, iso8601, rfc3339 or"
                + " rfc3339nano)");
  }
}
