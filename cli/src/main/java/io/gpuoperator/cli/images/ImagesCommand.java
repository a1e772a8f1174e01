package io.gpuoperator.cli.images;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.operand.RenderedOperand;
import io.gpuoperator.operator.validation.PolicyValidationException;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator images}: every image an installation of the chart pulls, for mirroring. */
@Command(
    name = "images",
    header = "Lists every image the Helm chart with these values pulls (for mirroring).",
    description = {
      "Renders the chart's values (its defaults, then each --values file, as helm merges them)"
          + " into the operator's image and the ClusterPolicy, renders every enabled operand as"
          + " the operator would (containerd, NFD present, DRA API resource.k8s.io/v1) and"
          + " prints each image once, sorted: the operator's, and every container and init"
          + " container of the operands' DaemonSets."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:listed", "2:bad input: a values file, or a policy it makes (named)"})
public class ImagesCommand implements Callable<Integer> {
  @Option(
      names = {"-f", "--values"},
      paramLabel = "FILE",
      description = "A values file, as for helm install -f (repeatable; later files win).")
  List<File> values = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    ChartValues chart = ChartValues.load(values.stream().map(File::toPath).toList());
    Set<String> images;
    try {
      images = images(chart, OperatorConfig.subcommandsOf(spec));
    } catch (PolicyValidationException e) {
      throw new ConfigException("the values make an invalid ClusterPolicy: " + e.getMessage(), e);
    }
    images.forEach(spec.commandLine().getOut()::println);
    return 0;
  }

  /**
   * The cluster the operands are rendered for: containerd, NFD present, DRA API {@code
   * resource.k8s.io/v1}, the Prometheus operator installed.
   */
  public static final ClusterFacts FACTS =
      new ClusterFacts("v1.36.3", "containerd", true, 1, true, "ubuntu24.04");

  /**
   * The images of the operator and of every operand the values enable, and NVIDIA's DRA driver
   * image that each ComputeDomain's IMEX daemon runs (from the mirror the operator comes from),
   * sorted.
   */
  public static Set<String> images(ChartValues chart, Set<String> agents) {
    Set<String> out = new TreeSet<>(operandImages(chart.policy(), agents));
    out.add(chart.operatorImage());
    out.add(ComputeDomainModel.daemonImage(chart.operatorImage()));
    return out;
  }

  /** The images of every DaemonSet the operator renders from a policy, sorted. */
  public static Set<String> operandImages(ClusterPolicy policy, Set<String> agents) {
    return operandImages(policy, agents, FACTS);
  }

  /** The images of every DaemonSet the operator renders from a policy on a cluster, sorted. */
  public static Set<String> operandImages(
      ClusterPolicy policy, Set<String> agents, ClusterFacts facts) {
    OperatorConfig config = OperatorConfig.fromEnv(Map.of()).withAgents(agents);
    Set<String> out = new TreeSet<>();
    for (RenderedOperand operand : Operands.renderAll(policy, facts, config)) {
      for (HasMetadata object : operand.objects()) {
        if (object instanceof DaemonSet ds) {
          out.addAll(images(ds.getSpec().getTemplate().getSpec()));
        }
      }
    }
    return out;
  }

  /** The images of a pod's containers and init containers. */
  public static List<String> images(PodSpec pod) {
    return Stream.concat(
            pod.getContainers().stream(),
            pod.getInitContainers() == null ? Stream.empty() : pod.getInitContainers().stream())
        .map(Container::getImage)
        .toList();
  }
}
