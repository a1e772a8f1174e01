package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A runtime's TOML config file as read from disk: its bytes (absent when there is no file) and its
 * document. Reading fails with the path and the reason, and nothing is written after such a
 * failure; edits are checked by reading the result back.
 */
final class ConfigText {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigText.class);

  final Path path;
  final Optional<byte[]> bytes;
  final String text;
  final ObjectNode tree;

  private ConfigText(Path path, Optional<byte[]> bytes, String text, ObjectNode tree) {
    this.path = path;
    this.bytes = bytes;
    this.text = text;
    this.tree = tree;
  }

  /** Reads and parses the file; an absent file is an empty document. */
  static ConfigText read(Path path) throws ConfigFileException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return new ConfigText(path, Optional.empty(), "", TomlTree.TOML.createObjectNode());
    }
    if (!Files.isRegularFile(path)) {
      throw new ConfigFileException(path + " is not a regular file; left untouched");
    }
    byte[] b;
    try {
      b = Files.readAllBytes(path);
    } catch (IOException e) {
      throw new ConfigFileException(
          "cannot read " + path + ": " + e.getMessage() + "; left untouched", e);
    }
    return parse(path, b);
  }

  static ConfigText parse(Path path, byte[] b) throws ConfigFileException {
    String text = new String(b, StandardCharsets.UTF_8);
    try {
      return new ConfigText(path, Optional.of(b), text, TomlTree.parse(text));
    } catch (IOException e) {
      String where = "";
      String what = firstLine(e.getMessage());
      if (e instanceof com.fasterxml.jackson.core.JsonProcessingException j) {
        what = firstLine(j.getOriginalMessage());
        if (j.getLocation() != null && j.getLocation().getLineNr() > 0) {
          where =
              "line "
                  + j.getLocation().getLineNr()
                  + ", column "
                  + j.getLocation().getColumnNr()
                  + ": ";
        }
      }
      throw new ConfigFileException(
          path + " is not valid TOML (" + where + what + "); left untouched", e);
    }
  }

  boolean exists() {
    return bytes.isPresent();
  }

  /**
   * The text with the changes made in place; when the layout defeats in-place editing (the result
   * reads back differently), the whole document is written anew, which loses comments but nothing
   * else, and says so.
   */
  String edited(List<TomlTree.Change> changes) throws ConfigFileException {
    ObjectNode want = TomlTree.apply(tree, changes);
    try {
      String out = TomlTree.applyText(text, changes);
      if (TomlTree.parse(out).equals(want)) {
        return out;
      }
    } catch (IOException | IllegalArgumentException e) {
      LOG.debug("in-place edit of {} failed: {}", path, e.toString());
    }
    String whole = TomlWriter.document(want);
    try {
      if (TomlTree.parse(whole).equals(want)) {
        LOG.warn(
            "{}: its layout cannot be edited in place; rewriting it whole (comments are lost, the"
                + " content is kept; the original stays in {})",
            path,
            Backups.originalOf(path).getFileName());
        return whole;
      }
    } catch (IOException e) {
      throw new ConfigFileException("cannot render " + path + ": " + e.getMessage(), e);
    }
    throw new ConfigFileException(
        "cannot edit " + path + " without changing other content; left untouched");
  }

  /** Writes new content after taking the backup (once). */
  void replace(String content, AtomicFile.BeforeRename hook) throws IOException {
    Backups.ensure(path, bytes);
    AtomicFile.write(path, content.getBytes(StandardCharsets.UTF_8), hook);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int i = s.indexOf('\n');
    return i < 0 ? s : s.substring(0, i);
  }
}
