package io.gpuoperator.cli;

import io.gpuoperator.api.OperandImages;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.Operands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Prints this build's version and the image each operand gets by default: ours where this binary
 * has the operand's agent, NVIDIA's otherwise.
 */
@Command(name = "version", description = "Print the version and the default operand images.")
public class VersionCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    lines(spec).forEach(spec.commandLine().getOut()::println);
  }

  static List<String> lines(CommandLine.Model.CommandSpec spec) {
    List<String> out = new ArrayList<>();
    out.add("gpu-operator " + OperandImages.projectVersion());
    out.add("Operand images:");
    Map<String, String> images = Operands.defaultImages(OperatorConfig.subcommandsOf(spec));
    for (Map.Entry<String, String> e : images.entrySet()) {
      out.add(String.format("  %-22s %s", e.getKey(), e.getValue()));
    }
    return out;
  }

  /** Also answers {@code gpu-operator --version}. */
  public static class Provider implements CommandLine.IVersionProvider {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public String[] getVersion() {
      return lines(spec).toArray(new String[0]);
    }
  }
}
