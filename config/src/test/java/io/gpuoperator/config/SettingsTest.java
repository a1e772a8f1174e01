package io.gpuoperator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
  static final Setting<String> MIG =
      Setting.of("--mig-strategy", Parse.oneOf("MIG strategy", List.of("none", "single", "mixed")))
          .env("GFD_MIG_STRATEGY", "MIG_STRATEGY")
          .field("flags.migStrategy")
          .orElse("none", "none");
  static final Setting<Duration> INTERVAL =
      Setting.of("--sleep-interval", Parse.duration(Duration.ofSeconds(1), Duration.ofHours(24)))
          .env("SLEEP_INTERVAL")
          .field("flags.gfd.sleepInterval")
          .orElse(Duration.ofSeconds(60), "60s");
  static final Setting<Boolean> ONESHOT =
      Setting.bool("--oneshot").env("ONESHOT").orElse(false, "false");
  static final Setting<List<String>> LISTS =
      Setting.of("--device-list-strategy", s -> List.of(s.split(",")))
          .field("flags.plugin.deviceListStrategy");

  static final Document FILE =
      Documents.parse(
          "version: v1\nflags:\n  migStrategy: x\n  gfd:\n    sleepInterval: 5s\n"
              + "  plugin:\n    deviceListStrategy: [envvar, cdi-cri]\n",
          "config.yaml");

  @Test
  void aValueIsWrittenAsTextItsParserReadsBack() {
    assertThat(LISTS.text(List.of("envvar", "cdi-cri"))).isEqualTo("envvar,cdi-cri");
    assertThat(LISTS.parse(LISTS.text(List.of("envvar", "cdi-cri"))))
        .containsExactly("envvar", "cdi-cri");
    assertThat(INTERVAL.format(d -> d.toSeconds() + "s").text(Duration.ofMinutes(2)))
        .isEqualTo("120s");
    assertThat(MIG.envName()).isEqualTo("GFD_MIG_STRATEGY");
    assertThatThrownBy(() -> LISTS.envName())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("--device-list-strategy has no environment variable");
  }

  @Test
  void withersChangeACopy() {
    Setting<Boolean> renamed = ONESHOT.env("RUN_ONCE").alias("-1");
    assertThat(renamed.env()).containsExactly("RUN_ONCE");
    assertThat(renamed.flags()).containsExactly("-1", "--oneshot");
    assertThat(renamed.optionalValueFlag()).isTrue();
    assertThat(ONESHOT.env()).containsExactly("ONESHOT");
    assertThat(ONESHOT.flags()).containsExactly("--oneshot");
  }

  @Test
  void flagThenEnvironmentInOrderThenFileThenDefault() {
    Document good = Documents.parse("flags: {migStrategy: mixed}\n", "c.yaml");
    assertThat(
            Settings.of(Map.of("--mig-strategy", "single"), Map.of("MIG_STRATEGY", "none"), good)
                .get(MIG))
        .isEqualTo("single");
    assertThat(
            Settings.of(
                    Map.of(), Map.of("MIG_STRATEGY", "none", "GFD_MIG_STRATEGY", "single"), good)
                .resolve(MIG))
        .isEqualTo(new Settings.Resolved<>("single", "GFD_MIG_STRATEGY", true));
    assertThat(Settings.of(Map.of(), Map.of("GFD_MIG_STRATEGY", " "), good).resolve(MIG))
        .isEqualTo(new Settings.Resolved<>("mixed", "c.yaml:1:9 flags.migStrategy", true));
    assertThat(Settings.of(Map.of(), Map.of(), null).resolve(MIG))
        .isEqualTo(new Settings.Resolved<>("none", "default", false));
    assertThat(Settings.ofEnv(Map.of()).withFile(FILE).get(LISTS))
        .containsExactly("envvar", "cdi-cri");
  }

  @Test
  void theSameBadValueFromEachSourceReadsTheSameButForItsOrigin() {
    String problem = ": unknown MIG strategy \"x\"; expected none, single or mixed";
    assertThatThrownBy(() -> Settings.of(Map.of("--mig-strategy", "x"), Map.of(), null).get(MIG))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--mig-strategy" + problem);
    assertThatThrownBy(() -> Settings.of(Map.of(), Map.of("MIG_STRATEGY", "x"), null).get(MIG))
        .hasMessage("MIG_STRATEGY" + problem);
    assertThatThrownBy(() -> Settings.ofEnv(Map.of()).withFile(FILE).get(MIG))
        .hasMessage("config.yaml:3:3 flags.migStrategy" + problem);
  }

  @Test
  void boundedValuesNameTheRange() {
    assertThatThrownBy(() -> Settings.ofEnv(Map.of("SLEEP_INTERVAL", "0s")).get(INTERVAL))
        .hasMessage("SLEEP_INTERVAL: expected a duration from 1s to 24h0m0s, got \"0s\"");
    assertThat(Settings.ofEnv(Map.of()).withFile(FILE).get(INTERVAL))
        .isEqualTo(Duration.ofSeconds(5));
    assertThatThrownBy(
            () ->
                Settings.ofEnv(Map.of("P", "99999"))
                    .get(Setting.of(null, Parse.port(false)).env("P")))
        .hasMessage("P: expected a whole number from 1 to 65535, got \"99999\"");
    assertThatThrownBy(() -> Settings.ofEnv(Map.of("ONESHOT", "maybe")).get(ONESHOT))
        .hasMessage("ONESHOT: expected true or false, got \"maybe\"");
  }

  @Test
  void aMappingWhereAValueBelongsIsAnError() {
    Document d = Documents.parse("flags:\n  migStrategy: {a: 1}\n", "m.yaml");
    assertThatThrownBy(() -> Settings.ofEnv(Map.of()).withFile(d).get(MIG))
        .hasMessage("m.yaml:2:3 flags.migStrategy: expected a single value, got a mapping");
  }

  @Test
  void parsersRejectWhatKubernetesRejects() {
    assertThatThrownBy(() -> Parse.dnsLabel("x/y")).hasMessageEndingWith("got \"x/y\"");
    assertThatThrownBy(() -> Parse.dnsLabel("UPPER NS!")).hasMessageContaining("lowercase");
    assertThat(Parse.dnsLabel("gpu-operator")).isEqualTo("gpu-operator");
    assertThatThrownBy(() -> Parse.dnsSubdomain("a".repeat(300)))
        .hasMessageContaining("(300 characters)");
    assertThatThrownBy(() -> Parse.image("not a ref")).hasMessageContaining("image reference");
    assertThat(Parse.image("nvcr.io/nvidia/driver:550.54.15")).isNotNull();
    assertThat(Parse.image("localhost:5000/x/y@sha256:" + "a".repeat(64))).isNotNull();
    assertThat(Parse.image("ghcr.io/gpu-operator/gpu-operator:0.1.0-SNAPSHOT")).isNotNull();
    assertThatThrownBy(() -> Parse.labelKey("-bad")).hasMessageContaining("label key");
    assertThat(Parse.labelKey("nvidia.com/gpu.present")).isNotNull();
    assertThatThrownBy(() -> Parse.quantity("lots")).hasMessageContaining("quantity");
    assertThat(Parse.quantity("256Gi")).isEqualTo("256Gi");
    assertThat(Values.quote("a\u001b[31m\"")).isEqualTo("\"a\\u001b[31m\\\"\"");
  }

  enum Spelled {
    INDEX,
    TYPE_INDEX
  }

  @Test
  void anEnumConstantIsReadAsFilesSpellItInAnyCaseAndAMissOffersTheSpellings() {
    var parse = Parse.constant("name strategy", Spelled.values());
    assertThat(parse.apply("type-index")).isEqualTo(Spelled.TYPE_INDEX);
    assertThat(parse.apply(" Index ")).isEqualTo(Spelled.INDEX);
    assertThatThrownBy(() -> parse.apply("type_index"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown name strategy \"type_index\"; expected index or type-index");
  }
}
