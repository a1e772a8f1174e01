package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the toolkit changes in a containerd config, as pure functions of documents (no I/O), by
 * config version:
 *
 * <ul>
 *   <li>1 (no {@code version} key in a non-empty file): CRI plugin {@code plugins.cri}, edited in
 *       the main file (version 1 has no imports);
 *   <li>2: {@code plugins."io.containerd.grpc.v1.cri"}, 3 and 4 (containerd 2.x): {@code
 *       plugins."io.containerd.cri.v1.runtime"}; a drop-in holding a copy of the whole CRI plugin
 *       section with the edits (containerd before 2.1 merges imports plugin by plugin: a drop-in
 *       with only the new runtimes would drop the user's), and the main file only gains an {@code
 *       imports} entry (and {@code version} when it had none).
 * </ul>
 *
 * The edits: runtimes {@code nvidia}, {@code nvidia-cdi}, {@code nvidia-legacy} copied from the
 * default runtime (then {@code runc}, then {@code crun}) so its options such as {@code
 * SystemdCgroup} carry over, with {@code options.BinaryName} set; {@code runc} declared when the
 * default runtime would otherwise vanish (defining any runtime replaces containerd's built-in map);
 * the default runtime when asked; {@code enable_cdi} and {@code cdi_spec_dirs}.
 */
final class ContainerdConfigModel {
  static final String RUNC_V2 = "io.containerd.runc.v2";
  static final List<String> BASE_RUNTIMES = List.of("runc", "crun");

  /** containerd 2.4 writes version 4 (a change outside the CRI plugin); 3 and 4 share its key. */
  static final int MAX_VERSION = 4;

  private ContainerdConfigModel() {}

  /**
   * The config version of the main file: its {@code version}; 1 when a non-empty file has none; for
   * an empty or absent file, the running containerd's (from {@code config dump}) or else 2.
   */
  static int version(ObjectNode main, Integer sourceVersion) throws ConfigFileException {
    JsonNode v = main.get("version");
    if (v == null) {
      if (!main.isEmpty()) {
        return 1;
      }
      return sourceVersion == null ? 2 : sourceVersion;
    }
    if (!v.isIntegralNumber() || v.asInt() < 1 || v.asInt() > MAX_VERSION) {
      throw new ConfigFileException(
          "unknown containerd config version " + v + " (expected 1, 2, 3 or 4)");
    }
    return v.asInt();
  }

  /** The CRI plugin's path for a config version. */
  static List<String> criPath(int version) {
    return switch (version) {
      case 1 -> List.of("plugins", "cri");
      case 2 -> List.of("plugins", "io.containerd.grpc.v1.cri");
      default -> List.of("plugins", "io.containerd.cri.v1.runtime");
    };
  }

  /** The CRI section with the toolkit's runtimes, default and CDI settings (a new object). */
  static ObjectNode configureCri(JsonNode source, int version, RuntimeSettings s) {
    ObjectNode cri =
        source != null && source.isObject()
            ? ((ObjectNode) source).deepCopy()
            : TomlTree.TOML.createObjectNode();
    ObjectNode containerd = TomlTree.object(cri, List.of("containerd"));
    ObjectNode runtimes = TomlTree.object(containerd, List.of("runtimes"));
    String dflt = containerd.path("default_runtime_name").asText("");
    ObjectNode base = null;
    List<String> candidates = new ArrayList<>();
    if (!dflt.isEmpty() && !s.runtimes().containsKey(dflt)) {
      candidates.add(dflt);
    }
    candidates.addAll(BASE_RUNTIMES);
    for (String c : candidates) {
      if (runtimes.get(c) instanceof ObjectNode o) {
        base = o;
        break;
      }
    }
    String declared = dflt.isEmpty() || s.runtimes().containsKey(dflt) ? "runc" : dflt;
    if (declared.equals("runc") && !runtimes.has("runc")) {
      ObjectNode runc = TomlTree.TOML.createObjectNode();
      runc.put("runtime_type", RUNC_V2);
      runtimes.set("runc", runc);
    }
    for (var e : s.runtimes().entrySet()) {
      ObjectNode r = base == null ? TomlTree.TOML.createObjectNode() : base.deepCopy();
      if (r.path("runtime_type").asText("").isEmpty()) {
        r.put("runtime_type", RUNC_V2);
      }
      ObjectNode options = TomlTree.object(r, List.of("options"));
      if (!e.getValue().isEmpty()) { // else the base runtime's own binary (RuntimeSettings)
        options.put("BinaryName", e.getValue());
        if (version == 1) {
          options.put("Runtime", e.getValue());
        }
      }
      runtimes.set(e.getKey(), r);
    }
    if (s.setAsDefault()) {
      containerd.put("default_runtime_name", s.defaultRuntime());
    } else if (s.runtimes().containsKey(dflt)) {
      containerd.remove("default_runtime_name");
    }
    if (s.cdiEnabled()) {
      cri.put("enable_cdi", true);
      ArrayNode dirs = TomlTree.TOML.createArrayNode();
      JsonNode existing = cri.get("cdi_spec_dirs");
      if (existing != null && existing.isArray()) {
        existing.forEach(dirs::add);
      }
      for (String d : s.cdiSpecDirs()) {
        if (!contains(dirs, d)) {
          dirs.add(d);
        }
      }
      cri.set("cdi_spec_dirs", dirs);
    }
    return cri;
  }

  /**
   * The paths below the CRI section the toolkit owns in a main file it edits (version 1): its
   * runtimes, {@code runc}, the default runtime, the CDI settings.
   */
  static List<List<String>> managedPaths(int version, RuntimeSettings s) {
    List<String> cri = criPath(version);
    List<List<String>> out = new ArrayList<>();
    for (String name : s.runtimes().keySet()) {
      out.add(concat(cri, "containerd", "runtimes", name));
    }
    out.add(concat(cri, "containerd", "runtimes", "runc"));
    out.add(concat(cri, "containerd", "default_runtime_name"));
    out.add(concat(cri, "enable_cdi"));
    out.add(concat(cri, "cdi_spec_dirs"));
    return out;
  }

  /** The changes that make {@code current} hold {@code desired}'s values at {@code paths}. */
  static List<TomlTree.Change> diff(JsonNode current, JsonNode desired, List<List<String>> paths) {
    List<TomlTree.Change> out = new ArrayList<>();
    for (List<String> p : paths) {
      JsonNode want = TomlTree.at(desired, p);
      JsonNode have = TomlTree.at(current, p);
      if (want == null ? have != null : !want.equals(have)) {
        out.add(new TomlTree.Change(p, want));
      }
    }
    return out;
  }

  /**
   * The main-file changes for a drop-in: {@code version} when absent, the {@code imports} entry.
   */
  static List<TomlTree.Change> importChanges(ObjectNode main, int version, String dropInHostPath) {
    List<TomlTree.Change> out = new ArrayList<>();
    if (!main.has("version")) {
      out.add(new TomlTree.Change(List.of("version"), IntNode.valueOf(version)));
    }
    JsonNode imports = main.get("imports");
    if (!imported(imports, dropInHostPath)) {
      ArrayNode next = TomlTree.TOML.createArrayNode();
      if (imports != null && imports.isArray()) {
        imports.forEach(next::add);
      }
      next.add(dropInHostPath);
      out.add(new TomlTree.Change(List.of("imports"), next));
    }
    return out;
  }

  /**
   * Undoes {@link #importChanges} against the original main file: drops the entry (unless the
   * original had it) and {@code version} (unless the original had it).
   */
  static List<TomlTree.Change> revertImportChanges(
      ObjectNode current, ObjectNode original, String dropInHostPath) {
    List<TomlTree.Change> out = new ArrayList<>();
    JsonNode imports = current.get("imports");
    JsonNode originalImports = original.get("imports");
    if (imports != null
        && imports.isArray()
        && contains((ArrayNode) imports, dropInHostPath)
        && !(originalImports != null
            && originalImports.isArray()
            && contains((ArrayNode) originalImports, dropInHostPath))) {
      ArrayNode next = TomlTree.TOML.createArrayNode();
      imports.forEach(
          i -> {
            if (!i.asText().equals(dropInHostPath)) {
              next.add(i);
            }
          });
      out.add(
          new TomlTree.Change(
              List.of("imports"), next.isEmpty() && originalImports == null ? null : next));
    }
    if (current.has("version") && !original.has("version")) {
      out.add(new TomlTree.Change(List.of("version"), null));
    }
    return out;
  }

  /** Whether an entry of {@code imports} (a path or a glob) already names the file. */
  static boolean imported(JsonNode imports, String file) {
    if (imports == null || !imports.isArray()) {
      return false;
    }
    for (JsonNode i : imports) {
      String pattern = i.asText();
      if (pattern.equals(file)) {
        return true;
      }
      try {
        if (pattern.startsWith("/")
            && FileSystems.getDefault().getPathMatcher("glob:" + pattern).matches(Path.of(file))) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // Not a glob Java reads; containerd would not match our file with it either.
      }
    }
    return false;
  }

  private static boolean contains(ArrayNode a, String s) {
    for (JsonNode n : a) {
      if (n.equals(TextNode.valueOf(s))) {
        return true;
      }
    }
    return false;
  }

  static List<String> concat(List<String> base, String... more) {
    List<String> out = new ArrayList<>(base);
    out.addAll(List.of(more));
    return out;
  }
}
