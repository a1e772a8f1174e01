package io.gpuoperator.config.zap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Each encoding against the text zap writes for the same instant (Go's layouts, by hand). */
class TimeEncodingTest {
  private static final Instant T = Instant.parse("2026-12-05T19:02:44.123456789Z");
  private static final Instant WHOLE = Instant.parse("2026-12-05T19:02:44Z");
  private static final ZoneId UTC = ZoneOffset.UTC;
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

  @Test
  void epochFormsAreNumbers() {
    // float64(1796497364123456789)/1e9 as Go's strconv.FormatFloat(f, 'f', -1, 64) writes it.
    assertThat(TimeEncoding.EPOCH.encode(T, UTC)).isEqualTo("1796497364.1234567");
    assertThat(TimeEncoding.EPOCH.encode(WHOLE, UTC)).isEqualTo("1796497364");
    assertThat(TimeEncoding.MILLIS.encode(T, UTC)).isEqualTo("1796497364123.4568");
    assertThat(TimeEncoding.NANOS.encode(T, UTC)).isEqualTo("1796497364123456789");
    assertThat(TimeEncoding.EPOCH.numeric()).isTrue();
    assertThat(TimeEncoding.RFC3339.numeric()).isFalse();
  }

  @Test
  void stringFormsInTheZone() {
    assertThat(TimeEncoding.ISO8601.encode(T, UTC)).isEqualTo("2026-12-05T19:02:44.123Z");
    assertThat(TimeEncoding.ISO8601.encode(T, PARIS)).isEqualTo("2026-12-05T20:02:44.123+0100");
    assertThat(TimeEncoding.RFC3339.encode(T, UTC)).isEqualTo("2026-12-05T19:02:44Z");
    assertThat(TimeEncoding.RFC3339.encode(T, PARIS)).isEqualTo("2026-12-05T20:02:44+01:00");
    assertThat(TimeEncoding.RFC3339NANO.encode(T, UTC)).isEqualTo("2026-12-05T19:02:44.123456789Z");
    assertThat(TimeEncoding.RFC3339NANO.encode(Instant.parse("2026-12-05T19:02:44.5Z"), PARIS))
        .isEqualTo("2026-12-05T20:02:44.5+01:00");
    assertThat(TimeEncoding.RFC3339NANO.encode(WHOLE, UTC)).isEqualTo("2026-12-05T19:02:44Z");
  }

  @Test
  void unknownValueNamesTheAcceptedOnes() {
    assertThatThrownBy(() -> TimeEncoding.parse("Unix"))
        .hasMessage(
            "invalid time-encoding value \"Unix\" (epoch, millis, nanos, iso8601, rfc3339 or"
                + " rfc3339nano)");
  }
}
