package io.gpuoperator.node.mig;

import io.gpuoperator.node.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Where the MIG manager reads its configurations, at every change (the ConfigMap behind the files
 * may have been updated): {@code CONFIG_FILE} (a user's ConfigMap; must exist when named), else
 * {@code DEFAULT_CONFIG_FILE} when present, else the set generated from the hardware tables (as the
 * original generates one from the hardware).
 *
 * @param configFile the user's file, or null
 * @param defaultFile the default file, or null
 */
public record MigConfigSource(Path configFile, Path defaultFile)
    implements Supplier<MigConfigFile> {
  @Override
  public MigConfigFile get() {
    if (configFile != null) {
      if (!Files.isRegularFile(configFile)) {
        throw new ConfigException(configFile + " (CONFIG_FILE) does not exist");
      }
      return MigConfigFile.load(configFile);
    }
    if (defaultFile != null && Files.isRegularFile(defaultFile)) {
      return MigConfigFile.load(defaultFile);
    }
    return MigConfigGenerator.defaults();
  }
}
