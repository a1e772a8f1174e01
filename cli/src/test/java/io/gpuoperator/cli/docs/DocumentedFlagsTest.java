package io.gpuoperator.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.docs.RunnableBlocks.Block;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The flags a page documents in its tables exist: each page's runnable blocks name the commands it
 * documents ({@code ./gpu-operator device-plugin --help}), and every option in the first column of
 * its tables ({@code | `--mig-strategy` | ...}) must be an option of one of those commands, as
 * picocli declares them. A renamed or removed flag then fails here rather than in a user's shell.
 */
class DocumentedFlagsTest {
  private static final Pattern FIRST_CELL = Pattern.compile("^\\|([^|]*)\\|");
  private static final Pattern OPTION = Pattern.compile("(?<![\\w-])(--?[a-zA-Z][\\w-]*)");

  @Test
  void everyFlagInAPagesTablesIsAnOptionOfItsCommands() throws IOException {
    Map<String, List<Block>> byFile = new LinkedHashMap<>();
    for (Block b : RunnableBlocks.in(RunnableBlocksTest.ROOT)) {
      byFile.computeIfAbsent(b.file(), f -> new ArrayList<>()).add(b);
    }
    int checked = 0;
    for (var page : byFile.entrySet()) {
      Set<String> options = new HashSet<>();
      for (Block b : page.getValue()) {
        Matcher m = RunnableBlocks.CALL.matcher(b.script());
        while (m.find()) {
          options.addAll(optionsOf(m.group(1), m.group(2)));
        }
      }
      String text = Files.readString(RunnableBlocksTest.ROOT.resolve(page.getKey()));
      int n = 0;
      for (String line : text.lines().toList()) {
        n++;
        Matcher cell = FIRST_CELL.matcher(line);
        if (!cell.find()) {
          continue;
        }
        Matcher opt = OPTION.matcher(cell.group(1).replace("`", " "));
        while (opt.find()) {
          assertThat(options)
              .as("%s:%d documents %s", page.getKey(), n, opt.group(1))
              .contains(opt.group(1));
          checked++;
        }
      }
    }
    assertThat(checked).as("documented flags checked").isGreaterThan(100);
  }

  /** The options of {@code command} (and of its subcommand {@code sub}, when it has one). */
  private static Set<String> optionsOf(String command, String sub) {
    CommandLine cl = GpuOperatorCommand.commandLine().getSubcommands().get(command);
    Set<String> options = new HashSet<>();
    if (cl == null) {
      return options;
    }
    options.addAll(cl.getCommandSpec().optionsMap().keySet());
    CommandLine subCl = sub == null ? null : cl.getSubcommands().get(sub);
    if (subCl != null) {
      options.addAll(subCl.getCommandSpec().optionsMap().keySet());
    }
    return options;
  }
}
