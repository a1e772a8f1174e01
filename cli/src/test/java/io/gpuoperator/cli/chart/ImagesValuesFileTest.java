package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.gpuoperator.cli.CommandRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 33 finding 3: {@code images -f} reads values files through the project's one loader
 * (config's Documents), so a huge file, a YAML bomb, aliases beyond the budget and duplicate keys
 * are refused with exit 2 and a file:line:column message that names no Java type.
 */
class ImagesValuesFileTest {
  /** Java type names that errors once leaked ("java.util.LinkedHashMap", "`java.lang.String`"). */
  private static final Pattern JAVA_TYPE =
      Pattern.compile("java\\.|com\\.fasterxml|org\\.yaml|LinkedHashMap|Exception");

  @TempDir Path dir;

  @Test
  void aTenMegabyteFileIsRefusedFastWithoutReadingItAll() throws IOException {
    Path big = dir.resolve("big.yaml");
    StringBuilder sb = new StringBuilder("driver:\n  env:\n");
    String line = "  - {name: PADDING, value: '" + "x".repeat(60) + "'}\n";
    while (sb.length() < 10 << 20) {
      sb.append(line);
    }
    Files.writeString(big, sb);
    long start = System.nanoTime();
    String err = refused(big);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(err).contains(big + ": larger than 1 MiB");
    assertThat(took).isLessThan(Duration.ofSeconds(5)); // was 42.7 s and 474 MB
  }

  @Test
  void aBillionLaughsBombIsRefused() throws IOException {
    StringBuilder sb = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (char c = 'b'; c <= 'j'; c++) {
      char p = (char) (c - 1);
      sb.append(c)
          .append(": &")
          .append(c)
          .append(" [*")
          .append(p)
          .append(",*")
          .append(p)
          .append(",*")
          .append(p)
          .append(",*")
          .append(p)
          .append(",*")
          .append(p)
          .append("]\n");
    }
    Path bomb = write("bomb.yaml", sb.toString());
    String err = refused(bomb);
    assertThat(err).contains(bomb + ":").contains("aliases expand to more than 10000 values");
  }

  @Test
  void aFewAliasesWorkAsInHelm() throws IOException {
    Path f =
        write(
            "aliases.yaml",
            "global:\n  imageRegistry: &reg mirror.local:5000/gpu\nx: *reg\n"
                + "dcgm: &on\n  enabled: true\ndcgmExporter: *on\n");
    CommandRun r = images(f);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines()).allMatch(i -> i.startsWith("mirror.local:5000/gpu/"));
  }

  /**
   * A malformed file is refused in words: each case's expected fragments, with {@code {file}} for
   * the file's path.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedFiles")
  void aMalformedFileIsRefusedInWords(String name, String yaml, List<String> expected)
      throws IOException {
    Path f = write(name, yaml);
    String err = refused(f);
    for (String fragment : expected) {
      assertThat(err).contains(fragment.replace("{file}", f.toString()));
    }
  }

  static Stream<Arguments> malformedFiles() {
    return Stream.of(
        arguments("loop.yaml", "driver: &d\n  again: *d\n", List.of("recursive alias")),
        arguments(
            "dup.yaml",
            "driver:\n  enabled: true\n  version: a\n  enabled: false\n",
            List.of("{file}:4:3 driver.enabled: duplicate key \"enabled\" (first at line 2)")),
        arguments(
            "list.yaml",
            "- driver\n- toolkit\n",
            List.of("{file}:1:1: expected a map of values (key: value lines), got a list")),
        arguments(
            "broken.yaml", "driver:\n  enabled: [true\n", List.of("{file}:", "not valid YAML")),
        arguments(
            "types.yaml",
            "driver:\n  env: not-a-list\n  enabled: maybe\n",
            List.of("spec.driver.env", "spec.driver.enabled")));
  }

  /** What the command printed refusing {@code values}: exit code 2, and no Java type names. */
  private static String refused(Path values) {
    CommandRun r = images(values);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(JAVA_TYPE.matcher(r.err()).find()).as(r.err()).isFalse();
    return r.err();
  }

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  private static CommandRun images(Path values) {
    return CommandRun.of("images", "-f", values.toString());
  }
}
