package io.gpuoperator.node.cdi;

import io.gpuoperator.node.gpu.GpuBackend;
import io.gpuoperator.node.gpu.GpuBackendException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator cdi generate}: writes the node's NVIDIA CDI spec. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Generates the CDI spec of this node's GPUs and driver (like nvidia-ctk cdi generate).",
      "Every path is resolved inside the driver root: no symlink leads out of it."
    })
public class CdiGenerateCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      paramLabel = "FILE",
      names = "--output",
      description =
          "File or directory to write (a directory gets <vendor>-<class>.<format>); stdout when absent")
  String output;

  @Option(
      paramLabel = "yaml|json",
      names = "--format",
      description = "yaml or json (default yaml)",
      defaultValue = "yaml")
  String format;

  @Option(
      paramLabel = "VENDOR",
      names = "--vendor",
      description = "CDI vendor (default nvidia.com)",
      defaultValue = "nvidia.com")
  String vendor;

  @Option(
      paramLabel = "CLASS",
      names = "--class",
      description = "CDI class (default gpu)",
      defaultValue = "gpu")
  String deviceClass;

  @Option(
      paramLabel = "KIND",
      names = "--kind",
      description =
          "<vendor>/<class> at once, e.g. " + CdiKind.MANAGEMENT + " (overrides --vendor/--class)")
  String kind;

  @Option(
      paramLabel = "DEVICE_NAME_STRATEGY",
      names = "--device-name-strategy",
      split = ",",
      description = "index, uuid, type-index; repeat or comma-separate (default index,uuid)")
  List<String> nameStrategies;

  @Option(
      paramLabel = "DIR",
      names = "--driver-root",
      description = "Driver root on the host, written into the spec (default /)",
      defaultValue = "/")
  String driverRoot;

  @Option(
      paramLabel = "DIR",
      names = "--driver-root-ctr-path",
      description = "Where this process reads the driver root (default: --driver-root)")
  String driverRootCtrPath;

  @Option(
      paramLabel = "DIR",
      names = "--dev-root",
      description =
          "Root of /dev on the host (default: --driver-root when it has dev/nvidiactl, else /)")
  String devRoot;

  @Option(
      paramLabel = "DIR",
      names = "--dev-root-ctr-path",
      description = "Where this process reads the dev root (default: --dev-root)")
  String devRootCtrPath;

  @Option(
      paramLabel = "FILE",
      names = "--nvidia-cdi-hook-path",
      description = "Host path of nvidia-cdi-hook; adds an update-ldcache hook (default: no hooks)")
  String hookPath;

  @Option(names = "--no-all-device", description = "Leave out the 'all' device")
  boolean noAllDevice;

  @Option(
      paramLabel = "FILE",
      names = "--mig-minors-file",
      description = "MIG capability minors (default /proc/driver/nvidia-caps/mig-minors)",
      defaultValue = "/proc/driver/nvidia-caps/mig-minors")
  String migMinors;

  @Option(
      paramLabel = "nvml|simulated",
      names = "--backend",
      description = "nvml or simulated (default nvml)",
      defaultValue = "nvml")
  String backend;

  @Option(
      paramLabel = "NAME|FILE",
      names = "--node-profile",
      description = "Simulated node: built-in name or YAML file")
  String nodeProfile;

  @Option(
      paramLabel = "FILE",
      names = "--nvml-library",
      description = "libnvidia-ml.so.1 to load (default: the driver root's)")
  String nvmlLibrary;

  @Option(
      paramLabel = "NAME",
      names = "--node-name",
      description = "This node (simulated UUIDs derive from it)")
  String nodeName;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    CdiGenerator generator;
    CdiSpecFiles.Format fmt;
    GpuBackendChoice choice;
    try {
      fmt = CdiSpecFiles.Format.parse(format);
      generator = generator();
      choice = new GpuBackendChoice(backend, nodeProfile, nvmlLibrary, nodeName);
    } catch (IllegalArgumentException e) {
      err.println("cdi generate: " + e.getMessage());
      return 2;
    }
    try (GpuBackend gpus = choice.open(generator.driverRoot())) {
      CdiGenerator.Result r = generator.generate(gpus);
      r.warnings().forEach(w -> err.println("cdi generate: warning: " + w));
      if (output == null) {
        spec.commandLine().getOut().print(CdiSpecFiles.render(r.spec(), fmt));
        spec.commandLine().getOut().flush();
        return 0;
      }
      Path out = Path.of(output);
      Path file =
          java.nio.file.Files.isDirectory(out)
              ? CdiSpecFiles.write(out, r.spec(), fmt)
              : writeFile(out, r, fmt);
      err.println(
          "cdi generate: wrote "
              + file
              + " ("
              + r.spec().devices().size()
              + " devices of kind "
              + r.spec().kind()
              + ")");
      return 0;
    } catch (GpuBackendException | IllegalArgumentException e) {
      err.println("cdi generate: cannot read the GPUs: " + e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("cdi generate: " + e.getMessage());
      return 1;
    }
  }

  private static Path writeFile(Path out, CdiGenerator.Result r, CdiSpecFiles.Format fmt)
      throws IOException {
    io.gpuoperator.node.files.AtomicFile.write(
        out, CdiSpecFiles.render(r.spec(), fmt).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return out;
  }

  CdiGenerator generator() {
    String k = kind != null ? kind : vendor + "/" + deviceClass;
    List<NvidiaCdiModel.NameStrategy> names = new ArrayList<>();
    for (String s : nameStrategies == null ? List.of("index", "uuid") : nameStrategies) {
      names.add(NvidiaCdiModel.NameStrategy.parse(s));
    }
    return forRoots(
        k,
        names,
        driverRoot,
        driverRootCtrPath,
        devRoot,
        devRootCtrPath,
        hookPath,
        !noAllDevice,
        Path.of(migMinors));
  }

  /**
   * A generator from host paths and the paths this process reads them at (null: the same). The dev
   * root defaults to the driver root when that holds {@code dev/nvidiactl} (a containerised
   * driver), else {@code /}.
   */
  public static CdiGenerator forRoots(
      String kind,
      List<NvidiaCdiModel.NameStrategy> names,
      String driverRoot,
      String driverRootCtr,
      String devRoot,
      String devRootCtr,
      String hookPath,
      boolean allDevice,
      Path migMinors) {
    if (hookPath != null && !hookPath.startsWith("/")) {
      throw new IllegalArgumentException(
          "--nvidia-cdi-hook-path '" + hookPath + "' must be an absolute host path");
    }
    Path driverCtr = Path.of(driverRootCtr != null ? driverRootCtr : driverRoot);
    String dev = devRoot;
    Path devCtr;
    if (dev == null) {
      boolean containerised = java.nio.file.Files.exists(driverCtr.resolve("dev/nvidiactl"));
      dev = containerised ? driverRoot : "/";
      devCtr = devRootCtr != null ? Path.of(devRootCtr) : containerised ? driverCtr : Path.of("/");
    } else {
      devCtr = Path.of(devRootCtr != null ? devRootCtr : dev);
    }
    return new CdiGenerator(
        driverCtr,
        devCtr,
        migMinors,
        new NvidiaCdiModel.Options(kind, names, driverRoot, dev, hookPath, allDevice));
  }
}
