package io.gpuoperator.cli.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shell blocks of the documentation marked as runnable: fenced code blocks whose info string is
 * {@code sh runnable} (or {@code bash runnable}), in {@code README.md} and {@code docs/**}{@code
 * /*.md}. Fences follow CommonMark: a block opened by three or more backticks (or tildes) is closed
 * by a line of at least as many of the same character, so a longer fence can show a runnable block
 * as an example without it being one. Pure text processing; {@link RunnableDocsIT} runs what this
 * finds.
 */
final class RunnableBlocks {
  /** The info string's first word: the block's language. */
  static final List<String> SHELLS = List.of("sh", "bash");

  /** The word after the language that marks a block as runnable. */
  static final String MARKER = "runnable";

  private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})(.*)$");

  /** A call of the launcher in a block: its subcommand (group 1) and sub-subcommand (group 2). */
  static final Pattern CALL =
      Pattern.compile("\\./gpu-operator\\s+([a-z][a-z-]*)(?:\\s+([a-z][a-z-]*))?");

  private RunnableBlocks() {}

  /** One runnable block: where its opening fence is (1-based line) and its script. */
  record Block(String file, int line, String script) {
    /** {@code file:line}, as the failure messages name a block. */
    String where() {
      return file + ":" + line;
    }

    /** True when the block holds no command (only blank lines and comments). */
    boolean isEmpty() {
      return script.lines().map(String::strip).allMatch(l -> l.isEmpty() || l.startsWith("#"));
    }
  }

  /** The documents searched, relative to the repository root, in a stable order. */
  static List<Path> documents(Path root) {
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    Path dir = root.resolve("docs");
    if (Files.isDirectory(dir)) {
      try (Stream<Path> s = Files.walk(dir)) {
        s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return docs;
  }

  /** Every runnable block of every document under {@code root}. */
  static List<Block> in(Path root) {
    List<Block> blocks = new ArrayList<>();
    for (Path doc : documents(root)) {
      try {
        blocks.addAll(parse(root.relativize(doc).toString(), Files.readString(doc)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return blocks;
  }

  /**
   * The runnable blocks of one Markdown text; {@code file} names it in the blocks and errors.
   *
   * @throws IllegalArgumentException naming {@code file:line} when a fence is never closed
   */
  static List<Block> parse(String file, String markdown) {
    List<Block> blocks = new ArrayList<>();
    List<String> lines = markdown.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      String fence = open.group(1);
      boolean runnable = isRunnable(open.group(2));
      int start = i;
      StringBuilder script = new StringBuilder();
      for (i++; i < lines.size() && !closes(lines.get(i), fence); i++) {
        script.append(lines.get(i)).append('\n');
      }
      if (i == lines.size()) {
        throw new IllegalArgumentException(
            file + ":" + (start + 1) + ": code fence " + fence + " is never closed");
      }
      if (runnable) {
        blocks.add(new Block(file, start + 1, script.toString()));
      }
    }
    return blocks;
  }

  private static boolean isRunnable(String info) {
    String[] words = info.strip().split("\\s+");
    return words.length >= 2 && SHELLS.contains(words[0]) && List.of(words).contains(MARKER);
  }

  private static boolean closes(String line, String fence) {
    String s = line.strip();
    char c = fence.charAt(0);
    if (s.length() < fence.length() || line.indexOf(c) > 3) {
      return false;
    }
    return s.chars().allMatch(ch -> ch == c);
  }
}
