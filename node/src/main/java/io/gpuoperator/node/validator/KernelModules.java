package io.gpuoperator.node.validator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The loaded kernel modules as {@code <root>/proc/modules} lists them (what {@code lsmod}, which
 * the original runs, prints): the node's, since modules are not namespaced.
 */
final class KernelModules {
  private KernelModules() {}

  /** The names of the loaded modules. */
  static Set<String> loaded(Path systemRoot) throws ValidationException {
    Path file = systemRoot.resolve("proc/modules");
    try {
      return Files.readAllLines(file).stream()
          .map(String::trim)
          .filter(l -> !l.isEmpty())
          .map(l -> l.split("\\s+", 2)[0])
          .collect(Collectors.toUnmodifiableSet());
    } catch (IOException e) {
      throw new ValidationException("cannot read the loaded kernel modules from " + file, e);
    }
  }

  /** Fails unless {@code module} is loaded, naming what it is for. */
  static void require(Path systemRoot, String module, String what) throws ValidationException {
    if (!loaded(systemRoot).contains(module)) {
      throw new ValidationException(
          "kernel module "
              + module
              + " ("
              + what
              + ") is not loaded: not in "
              + systemRoot.resolve("proc/modules"));
    }
  }
}
