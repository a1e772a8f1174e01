package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.reconciler.ConfigMapKeys;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpu-operator plan}: validates a ClusterPolicy offline and shows what the operator would
 * create, update or delete, and which labels and taint each node would get. Changes nothing.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Show what the operator would create or change for a ClusterPolicy; changes nothing.",
      "Validates the policy like the API server (CRD schema) and the operator (cross-field"
          + " rules) and exits 1 naming each invalid field."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the policy is valid; the plan was printed",
      "1:the policy is invalid (field paths and reasons on stderr)",
      "2:bad input (unreadable file, nodes file, or cluster)"
    })
public class PlanCommand implements Callable<Integer> {
  static final int INVALID = 1;
  static final int BAD_INPUT = 2;
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description = "ClusterPolicy YAML file.")
  Path file;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Compare with a live cluster (nodes, objects, ServiceMonitor CRD).")
  Path kubeconfig;

  @Option(
      names = "--nodes",
      paramLabel = "FILE",
      description = "Offline: nodes as printed by `kubectl get nodes -o yaml` (a v1 List).")
  Path nodesFile;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "Operator namespace (default: $OPERATOR_NAMESPACE or gpu-operator).")
  String namespace;

  @Option(
      names = "--manifests",
      description = "Also print the YAML of every object to create or update.")
  boolean manifests;

  /** Environment source, replaceable in tests. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (kubeconfig != null && nodesFile != null) {
      err.println("error: use either --kubeconfig or --nodes, not both");
      return BAD_INPUT;
    }
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (IOException e) {
      err.println("error: cannot read " + file + ": " + e.getMessage());
      return BAD_INPUT;
    }
    PolicyFile policy = PolicyFile.parse(yaml);
    policy.warnings().forEach(w -> err.println("warning: " + file + ": " + w));
    if (!policy.valid()) {
      printInvalid(err, policy.errors());
      return INVALID;
    }
    OperatorConfig config = config();
    try {
      Plan plan;
      String source;
      if (kubeconfig != null) {
        try (KubernetesClient client = client()) {
          List<Node> nodes = client.nodes().list().getItems();
          Set<String> monitoring = LiveObjects.monitoringKinds(client);
          boolean sm = monitoring.contains(ManagedObjects.SERVICE_MONITOR);
          ClusterFacts facts =
              NodeFacts.of(nodes, client.getKubernetesVersion().getGitVersion(), sm)
                  .withConfigMapKeys(
                      ConfigMapKeys.read(client, config.namespace(), policy.policy()));
          var rendered = Operands.renderAll(policy.policy(), facts, config);
          List<HasMetadata> live =
              LiveObjects.read(client, config.namespace(), rendered, monitoring);
          plan = Plan.build(policy.policy(), nodes, facts, config, live);
          source = "live, " + client.getMasterUrl().getHost();
        }
      } else {
        List<Node> nodes = nodesFile == null ? List.of() : readNodes(nodesFile);
        ClusterFacts facts = NodeFacts.of(nodes, KubernetesVersion.MINIMUM.gitVersion(), false);
        plan = Plan.build(policy.policy(), nodes, facts, config, List.of());
        source = nodesFile == null ? "offline, no nodes" : "offline, " + nodesFile;
      }
      out.print(PlanPrinter.print(plan, source));
      if (manifests) {
        out.print(PlanPrinter.manifests(plan));
      }
      out.flush();
      return 0;
    } catch (PolicyValidationException e) {
      printInvalid(err, e.violations());
      return INVALID;
    } catch (BadInput e) {
      err.println("error: " + e.getMessage());
      return BAD_INPUT;
    } catch (KubernetesClientException e) {
      err.println("error: cluster: " + e.getMessage());
      return BAD_INPUT;
    }
  }

  private void printInvalid(PrintWriter err, List<Violation> violations) {
    err.println("error: " + file + " is not a valid ClusterPolicy:");
    violations.forEach(v -> err.println("  " + v.path() + ": " + v.reason()));
    err.flush();
  }

  private OperatorConfig config() {
    OperatorConfig base =
        OperatorConfig.fromEnv(env).withAgents(OperatorConfig.subcommandsOf(spec));
    if (namespace == null || namespace.isBlank()) {
      return base;
    }
    return base.withNamespace(namespace.trim());
  }

  private KubernetesClient client() {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      return new KubernetesClientBuilder().withConfig(config).build();
    } catch (IOException | RuntimeException e) {
      throw new BadInput("cannot use kubeconfig " + kubeconfig + ": " + e.getMessage());
    }
  }

  /** Nodes from a v1 List, a NodeList or a single Node (kubectl get nodes -o yaml). */
  static List<Node> readNodes(Path file) {
    Object parsed;
    try {
      parsed = SERIALIZATION.unmarshal(Files.readString(file));
    } catch (IOException e) {
      throw new BadInput("cannot read " + file + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw new BadInput(
          file
              + ": not a Kubernetes List of Nodes: "
              + e.getMessage().lines().findFirst().orElse(""));
    }
    List<?> items;
    if (parsed instanceof NodeList list) {
      items = list.getItems();
    } else if (parsed instanceof KubernetesList list) {
      items = list.getItems();
    } else if (parsed instanceof Node node) {
      items = List.of(node);
    } else if (parsed instanceof List<?> list) {
      items = list;
    } else {
      throw new BadInput(file + ": expected a List of Nodes (kubectl get nodes -o yaml)");
    }
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (!(item instanceof Node node)) {
        String kind = item instanceof HasMetadata h ? h.getKind() : String.valueOf(item);
        throw new BadInput(file + ": items[" + i + "] is a " + kind + ", expected a Node");
      }
      if (node.getMetadata() == null || node.getMetadata().getName() == null) {
        throw new BadInput(file + ": items[" + i + "].metadata.name: Required value");
      }
      nodes.add(node);
    }
    return nodes;
  }

  /** Input the plan cannot work with; reported with exit code 2. */
  static final class BadInput extends RuntimeException {
    BadInput(String message) {
      super(message);
    }
  }
}
