package io.gpuoperator.cli.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The chart through helm-java's bundled helm: {@code helm template} and its parsed objects. */
final class HelmChart {
  static final String RELEASE = "gpu-operator";
  static final String NAMESPACE = "gpu-operator";
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private HelmChart() {}

  /** {@code helm template gpu-operator CHART -n gpu-operator [-f values] [--set k=v ...]}. */
  static String template(Path values, Map<String, Object> set) {
    return template(NAMESPACE, values, set);
  }

  /** {@code helm template gpu-operator CHART -n namespace [-f values] [--set k=v ...]}. */
  static String template(String namespace, Path values, Map<String, Object> set) {
    TemplateCommand cmd =
        new Helm(ChartFiles.CHART).template().withName(RELEASE).withNamespace(namespace);
    if (values != null) {
      cmd.withValuesFile(values.toAbsolutePath());
    }
    set.forEach(cmd::set);
    return cmd.call();
  }

  static String template(Map<String, Object> set) {
    return template(null, set);
  }

  /** Every object of a rendering, in order. */
  static List<GenericKubernetesResource> objects(String rendered) {
    List<GenericKubernetesResource> out = new ArrayList<>();
    for (String doc : rendered.split("(?m)^---\\s*$")) {
      if (doc.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
        continue;
      }
      out.add(SERIALIZATION.unmarshal(doc, GenericKubernetesResource.class));
    }
    return out;
  }

  static <T> T convert(GenericKubernetesResource object, Class<T> type) {
    return SERIALIZATION.convertValue(object, type);
  }

  static GenericKubernetesResource find(
      List<GenericKubernetesResource> objects, String kind, String name) {
    return objects.stream()
        .filter(o -> o.getKind().equals(kind) && o.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + "/" + name + " rendered"));
  }
}
