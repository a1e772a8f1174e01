package io.gpuoperator.node.toolkit;

import java.io.IOException;
import java.util.List;

/** Adds the toolkit's runtimes to one container runtime's config, and takes them out again. */
public interface RuntimeConfigurer {

  /** What a call did: whether a file changed (then the runtime needs a restart), and what. */
  record Outcome(boolean changed, List<String> actions) {
    static Outcome of(List<String> actions) {
      return new Outcome(!actions.isEmpty(), List.copyOf(actions));
    }
  }

  /** The runtime's name for messages, e.g. {@code containerd}. */
  String runtime();

  /** Configures; twice in a row changes nothing the second time. */
  Outcome install() throws ConfigFileException, IOException;

  /** Reverts exactly what install added; nothing when it was not installed. */
  Outcome uninstall() throws ConfigFileException, IOException;
}
