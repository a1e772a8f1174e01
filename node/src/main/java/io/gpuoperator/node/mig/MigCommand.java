package io.gpuoperator.node.mig;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.node.gpu.sim.HardwareProfile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpu-operator mig}: offline tools for MIG configurations. */
@Command(
    name = "mig",
    mixinStandardHelpOptions = true,
    description = "Check MIG configuration files and plan MIG layouts for a demand.",
    subcommands = {MigCommand.Validate.class, MigCommand.Plan.class})
public class MigCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code mig validate -f config.yaml}. */
  @Command(
      name = "validate",
      mixinStandardHelpOptions = true,
      header = "Checks a MIG config file against the hardware tables.",
      description = {
        "Checks a MIG config file (mig-parted format, version v1) against the hardware tables and",
        "prints per config: valid, invalid (with the reason) or skipped (GPUs without a table).",
        "Exit codes: 0 all valid or skipped, 1 an entry for a known GPU is invalid, 2 unreadable."
      })
  public static class Validate implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        paramLabel = "FILE",
        names = {"-f", "--filename"},
        required = true,
        description = "The MIG config file (the config.yaml of a mig-parted ConfigMap)")
    Path file;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      MigConfigFile config;
      try {
        config = MigConfigFile.load(file);
      } catch (ConfigException e) {
        err.println("error: " + e.getMessage());
        return 2;
      }
      List<MigConfigValidator.Verdict> verdicts =
          MigConfigValidator.validate(config, MigCatalog.builtIn());
      int invalid = 0;
      for (MigConfigValidator.Verdict v : verdicts) {
        out.println(v.summary());
        if (v.status() == MigConfigValidator.Status.INVALID) {
          invalid++;
        }
      }
      out.println();
      out.println(
          verdicts.size()
              + " config(s): "
              + (verdicts.size() - invalid)
              + " valid or skipped, "
              + invalid
              + " invalid");
      return invalid == 0 ? 0 : 1;
    }
  }

  /** {@code mig plan --demand 1g.10gb=20,3g.40gb=4}. */
  @Command(
      name = "plan",
      mixinStandardHelpOptions = true,
      header = "Proposes per-node MIG configs that provide a demand of MIG devices.",
      description = {
        "Proposes per-node MIG configs that provide the demanded MIG devices, changing as few GPUs",
        "as possible (GPUs whose current layout already helps keep it). GPUs come from the nodes'",
        "nvidia.com/gpu.product, gpu.count and gpu.memory labels; current layouts from",
        "nvidia.com/mig.config (state success) resolved in --config (default: the generated set).",
        "Exit codes: 0 demand met, 1 not all of it can be met (what is missing is printed), 2 bad input."
      })
  public static class Plan implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        paramLabel = "DEMAND",
        names = "--demand",
        required = true,
        description = "MIG devices wanted, e.g. 1g.10gb=20,3g.40gb=4")
    String demand;

    @Option(
        paramLabel = "FILE",
        names = "--nodes",
        description = "The nodes, as kubectl get nodes -o yaml prints them (offline)")
    Path nodes;

    @Option(
        paramLabel = "FILE",
        names = "--kubeconfig",
        description = "Read the nodes from this cluster instead")
    Path kubeconfig;

    @Option(
        paramLabel = "FILE",
        names = "--config",
        description = "The MIG config file the nodes' current labels name (default: generated set)")
    Path config;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Map<String, Integer> wanted;
      List<Node> nodeList;
      MigConfigFile file;
      try {
        wanted = MigPlanner.parseDemand(demand);
        file = config == null ? MigConfigGenerator.defaults() : MigConfigFile.load(config);
        nodeList = readNodes();
      } catch (IllegalArgumentException
          | ConfigException
          | IOException
          | KubernetesClientException e) {
        err.println("error: " + e.getMessage());
        return 2;
      }
      List<MigPlanner.Gpu> gpus = gpus(nodeList, file, out);
      MigPlanner.Plan plan = MigPlanner.plan(gpus, wanted);
      print(plan, wanted, gpus, out);
      return plan.satisfied() ? 0 : 1;
    }

    private List<Node> readNodes() throws IOException {
      if ((nodes == null) == (kubeconfig == null)) {
        throw new IllegalArgumentException(
            "give exactly one of --nodes FILE and --kubeconfig FILE");
      }
      if (kubeconfig != null) {
        Config c = Config.fromKubeconfig(Files.readString(kubeconfig));
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(c).build()) {
          return client.nodes().list().getItems();
        }
      }
      Object parsed;
      try {
        parsed = Serialization.unmarshal(Files.readString(nodes));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(nodes + ": not a Kubernetes YAML: " + e.getMessage(), e);
      }
      List<Node> out = new ArrayList<>();
      List<?> items =
          parsed instanceof NodeList nl
              ? nl.getItems()
              : parsed instanceof KubernetesList kl ? kl.getItems() : List.of(parsed);
      for (Object o : items) {
        if (o instanceof Node n) {
          out.add(n);
        } else if (o instanceof HasMetadata h) {
          throw new IllegalArgumentException(nodes + ": expected Nodes, found a " + h.getKind());
        }
      }
      return out;
    }

    /** The cluster's MIG-capable GPUs, from feature discovery's labels. */
    static List<MigPlanner.Gpu> gpus(List<Node> nodes, MigConfigFile file, PrintWriter out) {
      List<MigPlanner.Gpu> gpus = new ArrayList<>();
      for (Node n : nodes) {
        Map<String, String> l =
            n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        String product = l.get("nvidia.com/gpu.product");
        if (product == null) {
          continue;
        }
        long memory = parseLong(l.get("nvidia.com/gpu.memory"));
        Optional<HardwareProfile> hw = MigCatalog.builtIn().byProduct(product, memory);
        if (hw.isEmpty()) {
          out.println(
              "note: " + n.getMetadata().getName() + ": " + product + " has no MIG table; skipped");
          continue;
        }
        int count = (int) parseLong(l.get("nvidia.com/gpu.count"));
        String current = "success".equals(l.get(MigLabels.STATE)) ? l.get(MigLabels.CONFIG) : null;
        for (int i = 0; i < count; i++) {
          gpus.add(
              new MigPlanner.Gpu(
                  n.getMetadata().getName(), i, hw.get(), layout(file, current, hw.get(), i)));
        }
      }
      return gpus;
    }

    /** The MIG devices a config gives GPU {@code index} of the model (last selecting entry). */
    static Map<String, Integer> layout(
        MigConfigFile file, String config, HardwareProfile hw, int index) {
      if (config == null || !file.migConfigs().containsKey(config)) {
        return Map.of();
      }
      String id = MigCatalog.filterId(hw.pciDevice());
      Map<String, Integer> out = Map.of();
      for (MigConfigSpec e : file.config(config)) {
        if (e.devices().selects(index)
            && (e.deviceFilter().isEmpty() || e.deviceFilter().contains(id))) {
          out = e.migEnabled() ? e.migDevices() : Map.of();
        }
      }
      return out;
    }

    private static long parseLong(String v) {
      try {
        return v == null ? 0 : Long.parseLong(v.trim());
      } catch (NumberFormatException e) {
        return 0;
      }
    }

    private static void print(
        MigPlanner.Plan plan,
        Map<String, Integer> wanted,
        List<MigPlanner.Gpu> gpus,
        PrintWriter out) {
      out.println("Demand: " + MigPlanner.describe(wanted));
      out.println(
          "Cluster: "
              + gpus.size()
              + " MIG-capable GPU(s) on "
              + gpus.stream().map(MigPlanner.Gpu::node).distinct().count()
              + " node(s)");
      for (MigPlanner.Gpu g : plan.kept()) {
        out.println(
            "  keep   " + g.node() + " GPU " + g.index() + ": " + MigPlanner.describe(g.current()));
      }
      Map<String, List<MigPlanner.Change>> byNode = new LinkedHashMap<>();
      plan.changes()
          .forEach(c -> byNode.computeIfAbsent(c.gpu().node(), k -> new ArrayList<>()).add(c));
      for (MigPlanner.Change c : plan.changes()) {
        out.println(
            "  change "
                + c.gpu().node()
                + " GPU "
                + c.gpu().index()
                + " ("
                + c.gpu().model().model()
                + "): "
                + MigPlanner.describe(c.layout()));
      }
      out.println(
          "Touches "
              + plan.changes().size()
              + " of "
              + gpus.size()
              + " GPU(s) on "
              + byNode.size()
              + " node(s).");
      if (!byNode.isEmpty()) {
        Map<String, List<MigConfigSpec>> configs = new LinkedHashMap<>();
        byNode.forEach(
            (node, changes) -> {
              Map<Map<String, Integer>, List<Integer>> byLayout = new LinkedHashMap<>();
              changes.forEach(
                  c ->
                      byLayout
                          .computeIfAbsent(c.layout(), k -> new ArrayList<>())
                          .add(c.gpu().index()));
              List<MigConfigSpec> entries = new ArrayList<>();
              byLayout.forEach(
                  (layout, idx) ->
                      entries.add(
                          new MigConfigSpec(
                              new MigConfigSpec.Devices(false, idx), true, layout, List.of())));
              configs.put("plan-" + node, entries);
            });
        out.println();
        out.println(
            "MIG configs to add (e.g. to spec.migManager.configs; GPUs not listed stay as they are):");
        out.print(new MigConfigFile(MigConfigFile.VERSION, configs).toYaml());
        out.println();
        out.println("Then label the nodes:");
        byNode
            .keySet()
            .forEach(
                n ->
                    out.println(
                        "  kubectl label node "
                            + n
                            + " "
                            + MigLabels.CONFIG
                            + "=plan-"
                            + n
                            + " --overwrite"));
      }
      if (!plan.satisfied()) {
        out.println();
        out.println("Cannot be met:");
        plan.unmet()
            .forEach((p, n) -> out.println("  " + p + " ×" + n + ": " + plan.reasons().get(p)));
      }
    }
  }
}
