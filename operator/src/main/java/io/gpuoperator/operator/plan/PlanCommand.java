package io.gpuoperator.operator.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.gpuoperator.api.dra.ResourceApiVersion;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.EnvironmentException;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Values;
import io.gpuoperator.config.cli.ExitCodes;
import io.gpuoperator.config.cli.Failures;
import io.gpuoperator.config.cli.Kubeconfigs;
import io.gpuoperator.operator.cluster.ClusterFacts;
import io.gpuoperator.operator.cluster.DriverToolkitFacts;
import io.gpuoperator.operator.cluster.KubernetesVersion;
import io.gpuoperator.operator.cluster.NodeFacts;
import io.gpuoperator.operator.cluster.OpenShift;
import io.gpuoperator.operator.config.OperatorConfig;
import io.gpuoperator.operator.operand.ManagedObjects;
import io.gpuoperator.operator.operand.Operands;
import io.gpuoperator.operator.reconciler.ConfigMapKeys;
import io.gpuoperator.operator.reconciler.OperandApplier;
import io.gpuoperator.operator.reconciler.ServerRejection;
import io.gpuoperator.operator.validation.PolicyValidationException;
import io.gpuoperator.operator.validation.Violation;
import java.io.PrintWriter;
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
    header = "Shows what the operator would create or change for a ClusterPolicy; changes nothing.",
    description = {
      "Validates the policy like the API server (CRD schema) and the operator (cross-field"
          + " rules) and exits 2 naming each invalid field and its line."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the policy is valid (with --kubeconfig: the API server accepts every object in a dry"
          + " run); the plan was printed",
      "1:the cluster (--kubeconfig) could not be read",
      "2:bad input: an invalid policy (field paths, lines and reasons on stderr), an unreadable"
          + " file or nodes file, a bad flag"
    })
public class PlanCommand implements Callable<Integer> {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** A nodes file of a large cluster ({@code kubectl get nodes -o yaml}) may be big. */
  static final Documents.Limits NODES_LIMITS = Documents.Limits.DEFAULT.withMaxBytes(64L << 20);

  /** The output formats of {@code -o}. */
  enum Format {
    text,
    yaml,
    json
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description = "The ClusterPolicy YAML file.")
  Path file;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Compare with a live cluster (nodes, objects, Prometheus Operator CRDs) and dry-run every"
              + " object on its API server (needs create rights there).")
  Path kubeconfig;

  @Option(
      names = "--nodes",
      paramLabel = "FILE",
      description = "Offline: the nodes, as printed by kubectl get nodes -o yaml (a v1 List).")
  Path nodesFile;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "The operator namespace (default: $OPERATOR_NAMESPACE, else gpu-operator).")
  String namespace;

  @Option(
      names = "--manifests",
      description = "Also print the YAML of every object to create or update.")
  boolean manifests;

  @Option(
      names = "--node-agents",
      description =
          "Render node-agents mode (as the operator with NODE_AGENTS=true): our long-running node"
              + " agents in one nvidia-node-agents DaemonSet (default: $NODE_AGENTS, else false).")
  boolean nodeAgents;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "text|yaml|json",
      defaultValue = "text",
      description = "The plan as text for people, or as YAML or JSON for scripts.")
  Format output;

  /** Environment source, replaceable in tests. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (kubeconfig != null && nodesFile != null) {
      throw new ConfigException("--kubeconfig and --nodes: use one of them, not both");
    }
    OperatorConfig config = config();
    PolicyFile policy;
    try {
      policy = PolicyFile.of(Documents.read(file));
    } catch (ConfigException e) {
      throw new ConfigException("-f " + e.getMessage(), e);
    }
    policy.warnings().forEach(w -> err.println("warning: " + policy.where(w)));
    if (!policy.valid()) {
      printInvalid(err, policy, policy.errors());
      return ExitCodes.BAD_INPUT;
    }
    List<Node> nodes = nodesFile == null ? List.of() : readNodes(nodesFile);
    try {
      Plan plan;
      String source;
      if (kubeconfig != null) {
        try (KubernetesClient client = client()) {
          try {
            nodes = client.nodes().list().getItems();
            Set<String> monitoring = LiveObjects.monitoringKinds(client);
            boolean sm = monitoring.contains(ManagedObjects.SERVICE_MONITOR);
            ResourceApiVersion resourceApi = ResourceApiVersion.discover(client).orElse(null);
            boolean openShift = config.openShift() || OpenShift.served(client);
            ClusterFacts facts =
                NodeFacts.of(nodes, client.getKubernetesVersion().getGitVersion(), sm)
                    .withConfigMapKeys(
                        ConfigMapKeys.read(client, config.namespace(), policy.policy()))
                    .withResourceApi(resourceApi)
                    .withOpenShift(openShift);
            facts = DriverToolkitFacts.observe(facts, policy.policy().getSpec(), client);
            var rendered = Operands.renderAll(policy.policy(), facts, config);
            List<HasMetadata> live =
                LiveObjects.read(
                    client,
                    config.namespace(),
                    rendered,
                    ManagedObjects.served(monitoring, resourceApi, openShift));
            plan = Plan.build(policy.policy(), nodes, facts, config, live);
            source = "live, " + client.getMasterUrl().getHost();
            // The server's own checks of every object the operator would write (issue 19.3):
            // what passes offline validation but the server refuses is an invalid policy too.
            boolean namespaceExists =
                client.namespaces().withName(config.namespace()).get() != null;
            if (!namespaceExists) {
              err.println(
                  "warning: namespace "
                      + config.namespace()
                      + " does not exist on the cluster; its objects were not dry-run");
            }
            List<ServerRejection> rejected =
                OperandApplier.dryRun(
                    client,
                    plan.operands(),
                    ManagedObjects.served(monitoring, resourceApi, openShift),
                    !namespaceExists);
            if (!rejected.isEmpty()) {
              err.println(
                  "error: the API server ("
                      + client.getMasterUrl().getHost()
                      + ") refuses "
                      + rejected.size()
                      + " object(s) rendered from "
                      + file
                      + " (server-side dry run):");
              rejected.forEach(r -> err.println("  " + r.getMessage()));
              err.flush();
              return ExitCodes.BAD_INPUT;
            }
          } catch (KubernetesClientException e) {
            throw new EnvironmentException(
                "cluster " + client.getMasterUrl().getHost() + ": " + Failures.clusterProblem(e),
                e);
          }
        }
      } else {
        ClusterFacts facts =
            NodeFacts.of(nodes, KubernetesVersion.MINIMUM.gitVersion(), false)
                .withOpenShift(config.openShift());
        plan = Plan.build(policy.policy(), nodes, facts, config, List.of());
        source = nodesFile == null ? "offline, no nodes" : "offline, " + nodesFile;
      }
      switch (output) {
        case yaml ->
            out.print(SERIALIZATION.asYaml(PlanPrinter.structured(plan, source, manifests)));
        case json ->
            out.println(SERIALIZATION.asJson(PlanPrinter.structured(plan, source, manifests)));
        default -> {
          out.print(PlanPrinter.print(plan, source));
          if (manifests) {
            out.print(PlanPrinter.manifests(plan));
          }
        }
      }
      out.flush();
      return ExitCodes.OK;
    } catch (PolicyValidationException e) {
      printInvalid(err, policy, e.violations());
      return ExitCodes.BAD_INPUT;
    }
  }

  private void printInvalid(PrintWriter err, PolicyFile policy, List<Violation> violations) {
    err.println("error: " + file + " is not a valid ClusterPolicy:");
    violations.forEach(v -> err.println("  " + policy.where(v)));
    err.flush();
  }

  private OperatorConfig config() {
    OperatorConfig base =
        OperatorConfig.fromEnv(env).withAgents(OperatorConfig.subcommandsOf(spec));
    if (nodeAgents) {
      base = base.withNodeAgents(true);
    }
    if (namespace == null) {
      return base;
    }
    try {
      return base.withNamespace(Parse.dnsLabel(namespace.strip()));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--namespace: " + e.getMessage(), e);
    }
  }

  private KubernetesClient client() {
    Config config = Kubeconfigs.load(kubeconfig, "--kubeconfig");
    config.setRequestTimeout(30_000);
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Nodes from a v1 List, a NodeList or a single Node (kubectl get nodes -o yaml). */
  static List<Node> readNodes(Path file) {
    Document doc;
    try {
      doc = Documents.read(file, Documents.Format.YAML, NODES_LIMITS);
    } catch (ConfigException e) {
      throw new ConfigException("--nodes " + e.getMessage(), e);
    }
    if (!doc.root().isObject() || !doc.root().path("kind").isTextual()) {
      throw doc.error("", "expected a List of Nodes (kubectl get nodes -o yaml)");
    }
    List<com.fasterxml.jackson.databind.JsonNode> items = new ArrayList<>();
    String kind = doc.root().path("kind").asText();
    boolean single = kind.equals("Node");
    if (single) {
      items.add(doc.root());
    } else if (kind.equals("List") || kind.equals("NodeList")) {
      doc.root().path("items").forEach(items::add);
    } else {
      throw doc.error(
          "kind",
          "expected List, NodeList or Node (kubectl get nodes -o yaml), got " + Values.quote(kind));
    }
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      String path = single ? "" : "items[" + i + "]";
      var item = items.get(i);
      if (!item.isObject() || !"Node".equals(item.path("kind").asText())) {
        throw doc.error(
            path,
            "is "
                + (item.isObject()
                    ? "a " + Values.quote(item.path("kind").asText())
                    : "not an object")
                + ", expected a Node");
      }
      Node node;
      try {
        node = SERIALIZATION.convertValue(item, Node.class);
      } catch (RuntimeException e) {
        Violation v = PolicyFile.bindingError(e);
        throw doc.error(
            v.path().isEmpty() ? path : (path.isEmpty() ? v.path() : path + "." + v.path()),
            v.reason());
      }
      if (node.getMetadata() == null || node.getMetadata().getName() == null) {
        throw doc.error(
            path.isEmpty() ? "metadata.name" : path + ".metadata.name", "Required value");
      }
      nodes.add(node);
    }
    return nodes;
  }
}
