package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.files.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures containerd (see {@link ContainerdConfigModel} for what changes by config version).
 * Install writes the drop-in first and then the main file's {@code imports} entry, so containerd
 * never imports a missing file; uninstall goes the other way. Every file it changes is backed up
 * once ({@link Backups}) and written atomically; an unreadable or unknown-version config fails with
 * its path before anything is written. When nothing would change, nothing is written.
 *
 * @param config the main config as this process sees it
 * @param dropIn the drop-in as this process sees it; null to edit the main file (as for version 1)
 * @param settings what to configure ({@code dropInHostPath} is what the main file imports)
 * @param dump the running containerd's {@code config dump}, empty when not used or it failed
 * @param hook runs before each rename (tests crash there)
 */
public record ContainerdConfigurer(
    Path config,
    Path dropIn,
    RuntimeSettings settings,
    Supplier<Optional<ObjectNode>> dump,
    AtomicFile.BeforeRename hook)
    implements RuntimeConfigurer {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerdConfigurer.class);

  static final String DROP_IN_HEADER =
      "# Written by gpu-operator toolkit; `gpu-operator toolkit uninstall` removes it.\n";

  @Override
  public String runtime() {
    return "containerd";
  }

  @Override
  public Outcome install() throws ConfigFileException, IOException {
    ConfigText main = ConfigText.read(config);
    Optional<ObjectNode> source =
        main.tree.isEmpty() || dropIn != null ? dump.get() : Optional.empty();
    Integer sourceVersion = source.map(ConfigDump::version).orElse(null);
    int version = version(main, sourceVersion);
    List<String> actions = new ArrayList<>();
    List<String> cri = ContainerdConfigModel.criPath(version);
    if (version == 1 || dropIn == null) {
      ObjectNode want = main.tree.deepCopy();
      ObjectNode edited =
          ContainerdConfigModel.configureCri(TomlTree.at(main.tree, cri), version, settings);
      TomlTree.object(want, cri.subList(0, cri.size() - 1)).set(cri.get(cri.size() - 1), edited);
      List<TomlTree.Change> changes =
          ContainerdConfigModel.diff(
              main.tree, want, ContainerdConfigModel.managedPaths(version, settings));
      if (!main.tree.has("version") && main.tree.isEmpty() && version > 1) {
        changes.add(0, new TomlTree.Change(List.of("version"), IntNode.valueOf(version)));
      }
      if (!changes.isEmpty()) {
        main.replace(main.edited(changes), hook);
        actions.add("configured runtimes " + settings.runtimes().keySet() + " in " + config);
      }
      return Outcome.of(actions);
    }
    JsonNode criSource =
        source.isPresent() && sameLayout(sourceVersion, version)
            ? TomlTree.at(source.get(), cri)
            : TomlTree.at(main.tree, cri);
    ObjectNode dropInTree = TomlTree.TOML.createObjectNode();
    dropInTree.put("version", version);
    TomlTree.object(dropInTree, cri.subList(0, cri.size() - 1))
        .set(
            cri.get(cri.size() - 1),
            ContainerdConfigModel.configureCri(criSource, version, settings));
    String dropInText = DROP_IN_HEADER + TomlWriter.document(dropInTree);
    ConfigText existing = ConfigText.read(dropIn);
    List<TomlTree.Change> changes =
        ContainerdConfigModel.importChanges(main.tree, version, settings.dropInHostPath());
    String mainText = changes.isEmpty() ? null : main.edited(changes);
    boolean wroteDropIn = false;
    if (!existing.exists() || !existing.text.equals(dropInText)) {
      existing.replace(dropInText, hook);
      wroteDropIn = true;
      actions.add("wrote " + dropIn);
    }
    if (mainText != null) {
      try {
        main.replace(mainText, hook);
      } catch (IOException e) {
        if (wroteDropIn) {
          // Leave no half-installed state behind: the drop-in goes back to what it was.
          restoreDropIn();
        }
        throw e;
      }
      actions.add("imported " + settings.dropInHostPath() + " in " + config);
    }
    return Outcome.of(actions);
  }

  @Override
  public Outcome uninstall() throws ConfigFileException, IOException {
    ConfigText main = ConfigText.read(config);
    Optional<byte[]> original = Backups.original(config);
    ConfigText before =
        original == null || original.isEmpty()
            ? ConfigText.parse(config, new byte[0])
            : ConfigText.parse(config, original.get());
    List<String> actions = new ArrayList<>();
    int version = version(main, null);
    List<TomlTree.Change> changes;
    if (version == 1 || dropIn == null) {
      JsonNode want = before.tree;
      if (original == null) {
        // No backup: take out only what is unmistakably ours.
        List<String> cri = ContainerdConfigModel.criPath(version);
        List<TomlTree.Change> ours = new ArrayList<>();
        for (String name : settings.runtimes().keySet()) {
          ours.add(
              new TomlTree.Change(
                  ContainerdConfigModel.concat(cri, "containerd", "runtimes", name), null));
        }
        List<String> dflt = ContainerdConfigModel.concat(cri, "containerd", "default_runtime_name");
        JsonNode d = TomlTree.at(main.tree, dflt);
        if (d != null && settings.runtimes().containsKey(d.asText())) {
          ours.add(new TomlTree.Change(dflt, null));
        }
        want = TomlTree.apply(main.tree, ours);
      }
      changes =
          ContainerdConfigModel.diff(
              main.tree, want, ContainerdConfigModel.managedPaths(version, settings));
    } else if (original == null) {
      // No backup: install did not change the main file, or the backup was removed by hand. Only
      // an import of exactly our drop-in goes (it would name a file that is about to be gone).
      ObjectNode assumed = main.tree.deepCopy();
      assumed.remove("imports");
      changes =
          ContainerdConfigModel.revertImportChanges(main.tree, assumed, settings.dropInHostPath());
    } else {
      changes =
          ContainerdConfigModel.revertImportChanges(
              main.tree, before.tree, settings.dropInHostPath());
    }
    if (!changes.isEmpty()) {
      String text = main.edited(changes);
      if (original != null && original.isEmpty() && TomlTree.parse(text).isEmpty()) {
        AtomicFile.delete(config);
        actions.add("removed " + config + " (there was none before install)");
      } else {
        if (original != null && original.isPresent() && TomlTree.parse(text).equals(before.tree)) {
          // Same document as before install: put back the very bytes (comments, layout).
          text = new String(original.get(), StandardCharsets.UTF_8);
        }
        AtomicFile.write(config, text.getBytes(StandardCharsets.UTF_8), hook);
        actions.add("reverted " + config);
      }
    } else if (original != null
        && original.isPresent()
        && !Arrays.equals(main.bytes.orElse(null), original.get())
        && main.tree.equals(before.tree)) {
      AtomicFile.write(config, original.get(), hook);
      actions.add("restored the original layout of " + config);
    }
    Backups.clear(config);
    if (dropIn != null && version > 1) {
      restoreDropIn().ifPresent(actions::add);
    }
    return Outcome.of(actions);
  }

  /** Puts back the file that was at the drop-in's path, or removes ours. */
  private Optional<String> restoreDropIn() throws IOException {
    Optional<byte[]> dropInOriginal = Backups.original(dropIn);
    String done = null;
    if (dropInOriginal != null && dropInOriginal.isPresent()) {
      AtomicFile.write(dropIn, dropInOriginal.get(), hook);
      done = "restored " + dropIn;
    } else if (Files.exists(dropIn) && ours(dropIn)) {
      AtomicFile.delete(dropIn);
      done = "removed " + dropIn;
    }
    Backups.clear(dropIn);
    return Optional.ofNullable(done);
  }

  private static boolean ours(Path dropIn) throws IOException {
    return Files.readString(dropIn).startsWith(DROP_IN_HEADER);
  }

  private int version(ConfigText main, Integer sourceVersion) throws ConfigFileException {
    try {
      return ContainerdConfigModel.version(main.tree, sourceVersion);
    } catch (ConfigFileException e) {
      throw new ConfigFileException(config + ": " + e.getMessage() + "; left untouched");
    }
  }

  /** Version 3 and 4 configs lay the CRI plugin out the same way. */
  private static boolean sameLayout(Integer source, int version) {
    if (source == null) {
      return false;
    }
    return source == version || (source >= 3 && version >= 3);
  }

  static void log(Outcome o) {
    o.actions().forEach(a -> LOG.info("containerd: {}", a));
  }
}
