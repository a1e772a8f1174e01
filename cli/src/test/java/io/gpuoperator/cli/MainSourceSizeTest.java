package io.gpuoperator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.realnode.RealNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31: no main source file over {@value #MAX_LINES} lines. A file that grows past it holds
 * several concerns (the original's 5,000-line transform file started as one); split it into small
 * classes named for what they are. It lives in the cli module, the last one built, because it reads
 * every module's {@code src/main}: Java and every other text source there (manifests, protos,
 * properties).
 */
class MainSourceSizeTest {
  static final int MAX_LINES = 600;

  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  @Test
  void noMainSourceFileIsOver600Lines() throws IOException {
    Path repo = RealNode.REPO;
    List<String> modules = modules(repo);
    assertThat(modules).as("the modules listed in %s", repo.resolve("pom.xml")).contains("cli");
    List<String> over = new ArrayList<>();
    int files = 0;
    for (String module : modules) {
      Path main = repo.resolve(module).resolve("src/main");
      for (Path file : textFiles(main)) {
        files++;
        long lines = lines(file);
        if (lines > MAX_LINES) {
          over.add(repo.relativize(file) + " (" + lines + " lines)");
        }
      }
    }
    assertThat(files).as("main source files found under %s", repo).isGreaterThan(100);
    assertThat(over)
        .as("main source files over %d lines: split each by concern", MAX_LINES)
        .isEmpty();
  }

  @Test
  void countsLinesAsWcDoesAndSkipsBinaryFiles(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("at-limit.yaml"), "x\n".repeat(MAX_LINES));
    Files.writeString(
        dir.resolve("over-without-final-newline.java"), "x\n".repeat(MAX_LINES) + "x");
    Files.write(dir.resolve("image.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, '\n'});

    assertThat(lines(dir.resolve("at-limit.yaml"))).isEqualTo(MAX_LINES);
    assertThat(lines(dir.resolve("over-without-final-newline.java"))).isEqualTo(MAX_LINES + 1);
    assertThat(textFiles(dir))
        .extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder("at-limit.yaml", "over-without-final-newline.java");
  }

  /** The modules the root POM builds. */
  private static List<String> modules(Path repo) throws IOException {
    Matcher m = MODULE.matcher(Files.readString(repo.resolve("pom.xml")));
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1).strip());
    }
    return out;
  }

  /** Every file under {@code dir} that is text (no NUL byte), sorted; none when it is absent. */
  private static List<Path> textFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).filter(MainSourceSizeTest::isText).sorted().toList();
    }
  }

  private static boolean isText(Path file) {
    try {
      for (byte b : Files.readAllBytes(file)) {
        if (b == 0) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Newlines, as {@code wc -l} counts, plus a last line that has none. */
  private static long lines(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    long n = 0;
    for (byte b : bytes) {
      if (b == '\n') {
        n++;
      }
    }
    return bytes.length > 0 && bytes[bytes.length - 1] != '\n' ? n + 1 : n;
  }
}
