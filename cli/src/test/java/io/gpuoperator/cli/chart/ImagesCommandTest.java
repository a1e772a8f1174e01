package io.gpuoperator.cli.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.gpuoperator.api.v1.ClusterPolicy;
import io.gpuoperator.cli.CommandRun;
import io.gpuoperator.cli.GpuOperatorCommand;
import io.gpuoperator.cli.images.ChartValues;
import io.gpuoperator.cli.images.ImagesCommand;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ComputeDomainModel;
import io.gpuoperator.operator.operand.ImageResolver;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.spec.Section;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu-operator images} lists exactly the images of the manifests Helm renders: the operator
 * Deployment's, and those of every DaemonSet the operator renders from the ClusterPolicy that
 * {@code helm template} produced. Default values, and a mirror with a pinned digest.
 */
class ImagesCommandTest {
  private static final Set<String> AGENTS =
      OperatorConfig.subcommandsOf(GpuOperatorCommand.commandLine().getCommandSpec());

  @Test
  void defaultValuesListExactlyTheRenderedImages() {
    String rendered = HelmChart.template(Map.of());
    assertThat(run()).isEqualTo(String.join("\n", rendered(rendered)) + "\n");
  }

  @Test
  void aMirrorAndADigestListExactlyTheRenderedImages(@TempDir Path dir) throws IOException {
    Path values = dir.resolve("mirror.yaml");
    Files.writeString(
        values,
        "global:\n  imageRegistry: mirror.local:5000/gpu\n"
            + "driver:\n  version: sha256:"
            + "b".repeat(64)
            + "\ndcgm:\n  enabled: true\n");
    Set<String> listed = ImagesCommand.images(ChartValues.load(List.of(values)), AGENTS);
    assertThat(listed).isEqualTo(rendered(HelmChart.template(values, Map.of())));
    assertThat(listed)
        .allMatch(i -> i.startsWith("mirror.local:5000/gpu/"))
        .contains("mirror.local:5000/gpu/nvidia/driver@sha256:" + "b".repeat(64));
    assertThat(run("-f", values.toString())).isEqualTo(String.join("\n", listed) + "\n");
  }

  /** The chart's default images are the operator's own defaults, so both name the same release. */
  @Test
  void chartDefaultsAreTheOperatorsDefaultImages() {
    ClusterPolicy policy = ChartValues.load(List.of()).policy();
    for (Section section : Section.values()) {
      var component = section.of(policy.getSpec());
      if (component == null || component.image == null || component.repository == null) {
        continue;
      }
      assertThat(ImageResolver.resolve(component, section.path(), null))
          .as(section.path())
          .isEqualTo(Operands.defaultImage(section.imageKey(), AGENTS));
    }
  }

  /** The images of a helm rendering: the Deployment's, and the operands' of its ClusterPolicy. */
  static Set<String> rendered(String rendered) {
    List<GenericKubernetesResource> objects = HelmChart.objects(rendered);
    Set<String> out = new TreeSet<>();
    for (GenericKubernetesResource o : objects) {
      if (o.getKind().equals("Deployment")) {
        var pod = HelmChart.convert(o, Deployment.class).getSpec().getTemplate().getSpec();
        out.addAll(ImagesCommand.images(pod));
        // A ComputeDomain's IMEX daemon: NVIDIA's DRA driver image, from the operator's mirror.
        out.add(ComputeDomainModel.daemonImage(pod.getContainers().get(0).getImage()));
      }
    }
    ClusterPolicy policy =
        HelmChart.convert(
            HelmChart.find(objects, "ClusterPolicy", "cluster-policy"), ClusterPolicy.class);
    // The operand images of the policy helm rendered (its mapping of values, not ChartValues').
    out.addAll(ImagesCommand.operandImages(policy, AGENTS));
    return out;
  }

  private static String run(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "images";
    System.arraycopy(args, 0, all, 1, args.length);
    CommandRun r = CommandRun.of(all);
    assertThat(r.code()).as(r.err()).isZero();
    return r.out();
  }
}
