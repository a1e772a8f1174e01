package io.gpuoperator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The node module's layering: the agents are peers over shared layers. An agent package may use the
 * shared layers (the GPU layer, GPU fault detection, CDI, config files, atomic files, the agent
 * runtime) but never another agent, and no shared layer uses an agent; so moving, replacing or
 * deleting one agent touches no other. Read from the sources, so that a fully-qualified name counts
 * like an import.
 */
class NodeLayersTest {
  /** One package per node agent (subcommand). */
  static final Set<String> AGENTS =
      Set.of("deviceplugin", "discovery", "dra", "exporter", "mig", "toolkit", "validator");

  /** What every agent may build on. */
  static final Set<String> SHARED = Set.of("agent", "cdi", "config", "fault", "files", "gpu");

  private static final Path ROOT = Path.of("src/main/java/io/gpuoperator/node");
  private static final Pattern REFERENCE = Pattern.compile("io\\.gpuoperator\\.node\\.([a-z]+)\\b");

  @Test
  void everyPackageIsAnAgentOrASharedLayer() throws IOException {
    Set<String> packages = new TreeSet<>();
    try (Stream<Path> dirs = Files.list(ROOT)) {
      dirs.filter(Files::isDirectory).forEach(d -> packages.add(d.getFileName().toString()));
    }
    Set<String> known = new TreeSet<>(AGENTS);
    known.addAll(SHARED);
    assertThat(packages)
        .as("a new package under %s must be listed as an agent or a shared layer here", ROOT)
        .isEqualTo(known);
  }

  @Test
  void agentsUseOnlySharedLayersAndSharedLayersUseNoAgent() throws IOException {
    List<String> violations = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Path relative = ROOT.relativize(file);
        if (relative.getNameCount() == 1) {
          continue; // the top: the catalogue of agents (AgentContracts) names every agent
        }
        String owner = relative.getName(0).toString();
        String text = Files.readString(file);
        Matcher m = REFERENCE.matcher(text);
        while (m.find()) {
          String used = m.group(1);
          if (AGENTS.contains(used) && !used.equals(owner)) {
            violations.add(ROOT.relativize(file) + " uses " + m.group());
          }
        }
      }
    }
    assertThat(violations)
        .as("move what two agents share into a shared layer (%s) instead", SHARED)
        .isEmpty();
  }

  @Test
  void theCheckSeesAReference() {
    Matcher m = REFERENCE.matcher("import io.gpuoperator.node.deviceplugin.GpuInventory;");
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo("deviceplugin");
  }
}
