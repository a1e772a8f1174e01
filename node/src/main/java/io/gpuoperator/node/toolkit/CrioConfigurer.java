package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Configures CRI-O with a drop-in under {@code crio.conf.d} (CRI-O merges drop-ins key by key, so
 * the drop-in holds only the toolkit's tables): {@code [crio.runtime.runtimes.<name>]} copied from
 * the default runtime (then {@code crun}, then {@code runc}) with {@code runtime_path} and {@code
 * runtime_type = "oci"}, and {@code [crio.runtime] default_runtime} when asked. The main file is
 * only read. Uninstall removes the drop-in (or puts back a file that was there before).
 */
public record CrioConfigurer(
    Path config, Path dropIn, RuntimeSettings settings, AtomicFile.BeforeRename hook)
    implements RuntimeConfigurer {
  static final List<String> RUNTIMES = List.of("crio", "runtime", "runtimes");
  static final List<String> BASE_RUNTIMES = List.of("crun", "runc");

  @Override
  public String runtime() {
    return "crio";
  }

  @Override
  public Outcome install() throws ConfigFileException, IOException {
    ObjectNode effective = effectiveConfig();
    String text =
        ContainerdConfigurer.DROP_IN_HEADER + TomlWriter.document(dropInTree(effective, settings));
    ConfigText existing = ConfigText.read(dropIn);
    if (existing.exists() && existing.text.equals(text)) {
      return Outcome.of(List.of());
    }
    existing.replace(text, hook);
    return Outcome.of(List.of("wrote " + dropIn));
  }

  @Override
  public Outcome uninstall() throws ConfigFileException, IOException {
    List<String> actions = new ArrayList<>();
    Optional<byte[]> original = Backups.original(dropIn);
    if (original != null && original.isPresent()) {
      AtomicFile.write(dropIn, original.get(), hook);
      actions.add("restored " + dropIn);
    } else if (Files.isRegularFile(dropIn)
        && Files.readString(dropIn).startsWith(ContainerdConfigurer.DROP_IN_HEADER)) {
      AtomicFile.delete(dropIn);
      actions.add("removed " + dropIn);
    }
    Backups.clear(dropIn);
    return Outcome.of(actions);
  }

  /** The drop-in document, from the effective config (main file and the other drop-ins). */
  static ObjectNode dropInTree(ObjectNode effective, RuntimeSettings s) {
    JsonNode runtimes = TomlTree.at(effective, RUNTIMES);
    String dflt =
        TomlTree.at(effective, List.of("crio", "runtime", "default_runtime")) == null
            ? ""
            : TomlTree.at(effective, List.of("crio", "runtime", "default_runtime")).asText();
    List<String> candidates = new ArrayList<>();
    if (!dflt.isEmpty() && !s.runtimes().containsKey(dflt)) {
      candidates.add(dflt);
    }
    candidates.addAll(BASE_RUNTIMES);
    ObjectNode base = null;
    for (String c : candidates) {
      if (runtimes != null && runtimes.get(c) instanceof ObjectNode o) {
        base = o;
        break;
      }
    }
    ObjectNode out = TomlTree.TOML.createObjectNode();
    ObjectNode runtime = TomlTree.object(out, List.of("crio", "runtime"));
    if (s.setAsDefault()) {
      runtime.put("default_runtime", s.defaultRuntime());
    }
    ObjectNode table = TomlTree.object(runtime, List.of("runtimes"));
    for (Map.Entry<String, String> e : s.runtimes().entrySet()) {
      ObjectNode r = base == null ? TomlTree.TOML.createObjectNode() : base.deepCopy();
      if (!e.getValue().isEmpty()) { // else the base runtime's own binary (RuntimeSettings)
        r.put("runtime_path", e.getValue());
      }
      r.put("runtime_type", "oci");
      table.set(e.getKey(), r);
    }
    return out;
  }

  private ObjectNode effectiveConfig() throws ConfigFileException, IOException {
    ObjectNode merged = ConfigText.read(config).tree.deepCopy();
    Path dir = dropIn.getParent();
    if (dir != null && Files.isDirectory(dir)) {
      List<Path> files = new ArrayList<>();
      try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.conf")) {
        s.forEach(files::add);
      }
      files.sort(null);
      for (Path f : files) {
        if (!f.getFileName().equals(dropIn.getFileName())) {
          merge(merged, ConfigText.read(f).tree);
        }
      }
    }
    return merged;
  }

  private static void merge(ObjectNode into, ObjectNode from) {
    from.fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().isObject() && into.get(e.getKey()) instanceof ObjectNode o) {
                merge(o, (ObjectNode) e.getValue());
              } else {
                into.set(e.getKey(), e.getValue().deepCopy());
              }
            });
  }
}
