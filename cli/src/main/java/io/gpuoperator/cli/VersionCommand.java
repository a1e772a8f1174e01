package io.gpuoperator.cli;

import io.gpuoperator.api.OperandImages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Prints this build's version and the operand images it deploys by default. */
@Command(name = "version", header = "Prints this build's version and the default operand images.")
public class VersionCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    Provider.lines().forEach(spec.commandLine().getOut()::println);
  }

  /** Also answers {@code gpu-operator --version}. */
  public static class Provider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return lines().toArray(new String[0]);
    }

    static List<String> lines() {
      List<String> out = new ArrayList<>();
      out.add("gpu-operator " + OperandImages.projectVersion());
      out.add("Operand images:");
      for (Map.Entry<String, String> e : OperandImages.all().entrySet()) {
        out.add(String.format("  %-22s %s", e.getKey(), e.getValue()));
      }
      return out;
    }
  }
}
