package io.gpuoperator.node.toolkit;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuoperator.node.cdi.CdiGenerateCommand;
import io.gpuoperator.node.cdi.CdiGenerator;
import io.gpuoperator.node.cdi.CdiSpecFiles;
import io.gpuoperator.node.cdi.NvidiaCdiModel;
import io.gpuoperator.node.files.AtomicFile;
import io.gpuoperator.node.gpu.GpuBackend;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container toolkit on one node: configures the container runtime (then restarts it when a file
 * changed) and writes the CDI spec; uninstall undoes both. As a daemon (the DaemonSet's container)
 * it holds a lock on its pid file so two never run at once, configures, waits until it is told to
 * stop (SIGTERM when the pod is deleted), and reverts. Failure semantics: a config it cannot read
 * or does not know stops it before any write, with the path and reason; a failed restart is
 * retried, then fails with what to do; the files stay configured (they are correct, the runtime
 * just has not loaded them).
 */
public final class ToolkitAgent {
  private static final Logger LOG = LoggerFactory.getLogger(ToolkitAgent.class);
  static final List<NvidiaCdiModel.NameStrategy> NAMES =
      List.of(NvidiaCdiModel.NameStrategy.INDEX, NvidiaCdiModel.NameStrategy.UUID);

  private final ToolkitSettings s;
  private final Function<String, Path> local;
  private final Function<Path, GpuBackend> gpus;
  private final AtomicFile.BeforeRename hook;
  private final int restartAttempts;
  private final Duration restartBackoff;

  /**
   * @param local maps a path as the settings name it (the container's view) to this process's
   * @param gpus opens the GPU backend for a driver root (local path)
   */
  public ToolkitAgent(
      ToolkitSettings s,
      Function<String, Path> local,
      Function<Path, GpuBackend> gpus,
      AtomicFile.BeforeRename hook,
      int restartAttempts,
      Duration restartBackoff) {
    this.s = s;
    this.local = local;
    this.gpus = gpus;
    this.hook = hook;
    this.restartAttempts = restartAttempts;
    this.restartBackoff = restartBackoff;
  }

  /** With the original's restart retries (6 attempts, 5 s apart). */
  public ToolkitAgent(ToolkitSettings s, Function<Path, GpuBackend> gpus) {
    this(s, Path::of, gpus, AtomicFile.BeforeRename.NONE, 6, Duration.ofSeconds(5));
  }

  /** Configures the runtime and writes the CDI spec; returns what it did. */
  public List<String> install() throws ConfigFileException, IOException, InterruptedException {
    List<String> done = new ArrayList<>();
    // The GPUs are read before anything on the node changes: a driver root that is not there fails
    // here, leaving the runtime's config as it was; the spec is in place before the runtime
    // restarts into CDI.
    if (s.cdiEnabled()) {
      done.add(writeCdiSpec(cdiSpec()));
    }
    if (!s.noRuntimeConfig()) {
      RuntimeConfigurer.Outcome o = configurer().install();
      done.addAll(o.actions());
      if (o.changed()) {
        done.add(restart());
      } else {
        done.add(s.runtime() + " already configured");
      }
    }
    done.forEach(a -> LOG.info("toolkit: {}", a));
    return done;
  }

  /** Reverts the runtime config (restarting the runtime when it changed) and removes the spec. */
  public List<String> uninstall() throws ConfigFileException, IOException, InterruptedException {
    List<String> done = new ArrayList<>();
    if (!s.noRuntimeConfig()) {
      RuntimeConfigurer.Outcome o = configurer().uninstall();
      done.addAll(o.actions());
      if (o.changed()) {
        done.add(restart());
      }
    }
    if (CdiSpecFiles.remove(local.apply(s.cdiOutputDir()), s.cdiKind())) {
      done.add("removed the " + s.cdiKind() + " CDI spec from " + s.cdiOutputDir());
    }
    done.forEach(a -> LOG.info("toolkit: {}", a));
    return done;
  }

  /**
   * The DaemonSet's lifecycle: lock the pid file, install, then (unless {@code noDaemon}) wait for
   * {@code stop} and uninstall. {@code ready} runs once installed.
   */
  public void run(CountDownLatch stop, Runnable ready)
      throws ConfigFileException, IOException, InterruptedException {
    try (Installed installed = installLocked(ready)) {
      if (s.noDaemon()) {
        return;
      }
      LOG.info("toolkit: configured; waiting for a stop signal to revert");
      try {
        stop.await();
      } catch (InterruptedException e) {
        // Killed: revert all the same (close below), then report the interruption.
        Thread.currentThread().interrupt();
      }
      installed.uninstallOnClose();
    }
  }

  /**
   * The daemon's lifecycle without a thread waiting for the stop (the simulator runs hundreds of
   * toolkits in one JVM): lock the pid file and install, as {@link #run} does; closing the result
   * uninstalls and releases the pid file, as {@link #run} does on its stop signal. With {@code
   * noDaemon}, the pid file is released at once and closing does nothing more.
   */
  public AutoCloseable start(Runnable ready)
      throws ConfigFileException, IOException, InterruptedException {
    Installed installed = installLocked(ready);
    if (s.noDaemon()) {
      installed.close();
      return () -> {};
    }
    LOG.info("toolkit: configured; reverting when stopped");
    installed.uninstallOnClose();
    return installed;
  }

  /** Locks the pid file and installs; the result releases it (and uninstalls when asked to). */
  private Installed installLocked(Runnable ready)
      throws ConfigFileException, IOException, InterruptedException {
    Path pidFile = local.apply(s.pidFile());
    Files.createDirectories(pidFile.toAbsolutePath().getParent());
    FileChannel ch = FileChannel.open(pidFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    Installed installed = new Installed(pidFile, ch);
    try {
      installed.lock = tryLock(ch);
      if (installed.lock == null) {
        throw new IOException(
            "another toolkit holds " + s.pidFile() + "; only one may configure a node at a time");
      }
      ch.truncate(0);
      ch.write(
          java.nio.ByteBuffer.wrap(
              (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8)));
      install();
      ready.run();
      return installed;
    } catch (ConfigFileException | IOException | InterruptedException | RuntimeException e) {
      installed.close();
      throw e;
    }
  }

  /** The pid file held while installed; closing uninstalls (when asked to) and releases it. */
  private final class Installed implements AutoCloseable {
    private final Path pidFile;
    private final FileChannel channel;
    private FileLock lock;
    private boolean uninstall;
    private boolean closed;

    Installed(Path pidFile, FileChannel channel) {
      this.pidFile = pidFile;
      this.channel = channel;
    }

    void uninstallOnClose() {
      uninstall = true;
    }

    @Override
    public synchronized void close() throws ConfigFileException, IOException, InterruptedException {
      if (closed) {
        return;
      }
      closed = true;
      // Uninstall even when interrupted (killed), then report the interruption.
      boolean interrupted = Thread.interrupted();
      try {
        if (uninstall) {
          uninstall();
        }
      } finally {
        try {
          if (interrupted) {
            Thread.currentThread().interrupt();
          }
          Files.deleteIfExists(pidFile);
        } finally {
          try (channel) {
            if (lock != null) {
              lock.release();
            }
          }
        }
      }
    }
  }

  /** Null when another process (or, in the simulator, another agent in this JVM) holds it. */
  private static FileLock tryLock(FileChannel ch) throws IOException {
    try {
      return ch.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      return null;
    }
  }

  private CdiGenerator.Result cdiSpec() throws IOException {
    Path driverCtr = local.apply(s.driverRootCtrPath());
    String devRoot = s.devRoot();
    Path devCtr = s.devRootCtrPath() == null ? null : local.apply(s.devRootCtrPath());
    if (devRoot == null) {
      // A containerised driver brings its own /dev; otherwise the host's (this container's).
      boolean containerised = Files.exists(driverCtr.resolve("dev/nvidiactl"));
      devRoot = containerised ? s.driverRoot() : "/";
      devCtr = containerised ? driverCtr : local.apply("/");
    } else if (devCtr == null) {
      devCtr = local.apply(devRoot);
    }
    CdiGenerator g =
        CdiGenerateCommand.forRoots(
            s.cdiKind(),
            NAMES,
            s.driverRoot(),
            driverCtr.toString(),
            devRoot,
            devCtr.toString(),
            null,
            true,
            local.apply("/proc/driver/nvidia-caps/mig-minors"));
    GpuBackend backend = gpus.apply(g.driverRoot());
    CdiGenerator.Result r = g.generate(backend);
    r.warnings().forEach(w -> LOG.warn("toolkit: {}", w));
    return r;
  }

  private String writeCdiSpec(CdiGenerator.Result r) throws IOException {
    Path file =
        CdiSpecFiles.write(local.apply(s.cdiOutputDir()), r.spec(), CdiSpecFiles.Format.YAML);
    return "wrote the "
        + s.cdiKind()
        + " CDI spec ("
        + r.spec().devices().size()
        + " devices) to "
        + file;
  }

  RuntimeConfigurer configurer() {
    RuntimeSettings rs = s.runtimeSettings(nvidiaRuntimeInstalled());
    Path config = local.apply(s.config());
    Path dropIn = s.dropIn() == null ? null : local.apply(s.dropIn());
    if (s.runtime().equals("crio")) {
      if (dropIn == null) {
        throw new IllegalArgumentException(
            "CRI-O is configured through a drop-in: RUNTIME_DROP_IN_CONFIG must not be empty");
      }
      return new CrioConfigurer(config, dropIn, rs, hook);
    }
    return new ContainerdConfigurer(config, dropIn, rs, this::dump, hook);
  }

  /**
   * Whether NVIDIA's runtime binary is in the toolkit directory (NVIDIA's toolkit image installs
   * it; this image cannot, it is Go). Without it the nvidia runtimes run runc, said once here.
   */
  private boolean nvidiaRuntimeInstalled() {
    Path binary = local.apply(s.toolkitDir() + "/" + RuntimeSettings.NVIDIA_RUNTIME);
    boolean installed = Files.isExecutable(binary);
    if (!installed && !warnedNoNvidiaRuntime) {
      warnedNoNvidiaRuntime = true;
      LOG.warn(
          "toolkit: no {} at {} (NVIDIA's toolkit image installs it): the runtimes {} run {}'s"
              + " default binary, and containers get GPUs only through CDI devices",
          RuntimeSettings.NVIDIA_RUNTIME,
          binary,
          RuntimeSettings.nvidiaRuntimes(s.runtimeName(), s.toolkitDir(), false).keySet(),
          s.runtime());
    }
    return installed;
  }

  private boolean warnedNoNvidiaRuntime;

  private Optional<ObjectNode> dump() {
    if (!s.configSources().contains("command")) {
      return Optional.empty();
    }
    List<String> cmd =
        ConfigDump.containerdCommand(
            s.hostRoot(), s.containerd(), s.hostRoot().equals("/") ? s.config() : null);
    try {
      return Optional.of(ConfigDump.run(cmd));
    } catch (IOException e) {
      if (s.configSources().contains("file")) {
        LOG.info(
            "toolkit: {} failed ({}); reading the config file instead",
            String.join(" ", cmd),
            e.getMessage());
      } else {
        LOG.warn("toolkit: {} failed: {}", String.join(" ", cmd), e.getMessage());
      }
      return Optional.empty();
    }
  }

  private String restart() throws IOException, InterruptedException {
    if (s.restartMode() == RuntimeRestarter.Mode.NONE) {
      return "did not restart "
          + s.runtime()
          + " (restart mode none): it loads the change when it next starts";
    }
    restarter().restart();
    return "restarted "
        + s.runtime()
        + " ("
        + s.restartMode().name().toLowerCase(java.util.Locale.ROOT)
        + ")";
  }

  private RuntimeRestarter restarter() {
    return new RuntimeRestarter(
        s.restartMode(),
        local.apply(s.socket()),
        local.apply(s.hostRoot()).toString(),
        s.runtime(),
        restartAttempts,
        restartBackoff);
  }
}
