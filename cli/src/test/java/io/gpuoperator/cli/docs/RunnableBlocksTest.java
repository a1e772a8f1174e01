package io.gpuoperator.cli.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.docs.RunnableBlocks.Block;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * The extractor {@link RunnableDocsIT} relies on: it finds exactly the blocks marked {@code sh
 * runnable}, with the line of their fence, and the repository's documentation has such blocks, none
 * of them empty, each calling only subcommands the binary has.
 */
class RunnableBlocksTest {
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void findsTheRunnableBlocksAndTheirLines() {
    String md =
        """
        # Title

        ```sh runnable
        ./gpu-operator --help
        ```

        ```bash
        sudo scripts/test-real-node.sh
        ```

        ```
        $ ./gpu-operator version
        ```

        ~~~bash runnable
        echo one
        echo two
        ~~~

        ````markdown
        ```sh runnable
        not a block: shown inside a longer fence
        ```
        ````

        ```sh   runnable
        ```
        """;

    List<Block> blocks = RunnableBlocks.parse("doc.md", md);

    assertThat(blocks)
        .extracting(Block::where)
        .containsExactly("doc.md:3", "doc.md:15", "doc.md:26");
    assertThat(blocks.get(0).script()).isEqualTo("./gpu-operator --help\n");
    assertThat(blocks.get(1).script()).isEqualTo("echo one\necho two\n");
    assertThat(blocks).extracting(Block::isEmpty).containsExactly(false, false, true);
  }

  @Test
  void aBlockOfCommentsIsEmpty() {
    assertThat(new Block("d.md", 1, "# nothing to run\n\n").isEmpty()).isTrue();
    assertThat(new Block("d.md", 1, "true # something\n").isEmpty()).isFalse();
  }

  @Test
  void anUnclosedFenceIsAnErrorNamingItsLine() {
    assertThatThrownBy(() -> RunnableBlocks.parse("doc.md", "text\n\n```sh runnable\nls\n"))
        .hasMessageStartingWith("doc.md:3: code fence ``` is never closed");
  }

  @Test
  void theDocumentationHasRunnableBlocksAndNoneIsEmpty() {
    List<Block> blocks = RunnableBlocks.in(ROOT);

    assertThat(blocks).extracting(Block::file).contains("README.md").hasSizeGreaterThan(20);
    assertThat(blocks).filteredOn(Block::isEmpty).extracting(Block::where).isEmpty();
  }

  @Test
  void runnableBlocksCallOnlySubcommandsTheBinaryHas() {
    Set<String> subcommands = GpuOperatorCommand.commandLine().getSubcommands().keySet();
    for (Block block : RunnableBlocks.in(ROOT)) {
      Matcher m = RunnableBlocks.CALL.matcher(block.script());
      while (m.find()) {
        assertThat(subcommands).as(block.where()).contains(m.group(1));
      }
    }
  }
}
