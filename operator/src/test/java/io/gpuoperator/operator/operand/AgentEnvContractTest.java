package io.gpuoperator.operator.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuoperator.config.Setting;
import io.gpuoperator.node.AgentContracts;
import io.gpuoperator.node.AgentContracts.Contract;
import io.gpuoperator.node.agent.AgentEnv;
import io.gpuoperator.node.toolkit.ToolkitSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator and the agents agree on every variable: each one a rendered container of ours is
 * given (every golden rendering, which {@link GoldenTest} and {@link NodeAgentsModelTest} keep
 * equal to what the operator renders) is a setting the container's subcommand reads, and its value
 * parses as that setting's type. A variable the agent does not read, or a value it would refuse,
 * fails here rather than on a node.
 */
class AgentEnvContractTest {
  private static final Path GOLDEN = Path.of("src/test/resources/golden");

  @Test
  void everyVariableOfOurContainersIsReadAndParsesAsTheAgentExpects() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path file : goldenFiles()) {
      for (DaemonSet ds : daemonSets(file)) {
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        for (Container c : containers(pod)) {
          String where = GOLDEN.relativize(file) + " " + c.getName();
          checked += check(where, c, problems);
        }
      }
    }
    assertThat(checked).as("variables checked").isGreaterThan(100);
    assertThat(problems).isEmpty();
  }

  @Test
  void aVariableNoAgentReadsIsFound() {
    Container c = new Container();
    c.setArgs(List.of("device-plugin"));
    c.setEnv(List.of(new EnvVar("MIG_STRATEGY", "sideways", null), new EnvVar("NOPE", "1", null)));
    List<String> problems = new ArrayList<>();
    check("test", c, problems);
    assertThat(problems)
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("MIG_STRATEGY").contains("sideways"))
        .anySatisfy(p -> assertThat(p).contains("NOPE").contains("device-plugin does not read"));
  }

  /** Checks a container's variables; returns how many were checked (0 for not one of ours). */
  private static int check(String where, Container c, List<String> problems) {
    if (c.getCommand() != null && !c.getCommand().isEmpty()) {
      return 0; // a shell step of ours, not an agent
    }
    List<String> args = c.getArgs() == null ? List.of() : c.getArgs();
    Optional<Contract> contract =
        args.isEmpty() ? Optional.empty() : AgentContracts.of(args.get(0));
    if (contract.isEmpty()) {
      return 0;
    }
    List<Contract> hosted = hosted(contract.get(), args);
    Map<String, String> values = new HashMap<>();
    int n = 0;
    for (EnvVar e : c.getEnv() == null ? List.<EnvVar>of() : c.getEnv()) {
      n++;
      String name = e.getName();
      if (e.getValue() != null) {
        values.put(name, e.getValue());
      }
      if (AgentContracts.RUNTIME_ENV.contains(name)) {
        continue;
      }
      Contract reader = contract.get();
      String variable = name;
      for (Contract h : hosted) {
        String prefix = AgentEnv.prefix(h.subcommand());
        if (name.startsWith(prefix)) {
          reader = h;
          variable = name.substring(prefix.length());
        }
      }
      Optional<Setting<?>> setting = readerOf(reader, hosted, variable);
      if (setting.isEmpty()) {
        problems.add(
            where + ": " + name + " is set but " + reader.subcommand() + " does not read it");
      } else if (e.getValue() != null && !e.getValue().isBlank()) {
        try {
          setting.get().parse(e.getValue());
        } catch (IllegalArgumentException bad) {
          problems.add(
              where + ": " + name + "=" + e.getValue() + " does not parse: " + bad.getMessage());
        }
      }
    }
    if (contract.get().subcommand().equals("toolkit")) {
      try {
        ToolkitSettings.resolve(Map.of(), values);
      } catch (IllegalArgumentException bad) {
        problems.add(where + ": the toolkit refuses its environment: " + bad.getMessage());
      }
    }
    return n;
  }

  /**
   * The setting a variable is read as: the reader's own, or, for a variable every hosted agent sees
   * (no prefix), any hosted agent's.
   */
  private static Optional<Setting<?>> readerOf(
      Contract reader, List<Contract> hosted, String variable) {
    Optional<Setting<?>> own = reader.byEnv(variable);
    if (own.isPresent() || !reader.subcommand().equals("node-agents")) {
      return own;
    }
    return hosted.stream().flatMap(h -> h.byEnv(variable).stream()).findFirst();
  }

  /** The agents {@code node-agents --run a,b} hosts (none for any other subcommand). */
  private static List<Contract> hosted(Contract contract, List<String> args) {
    List<Contract> out = new ArrayList<>();
    if (!contract.subcommand().equals("node-agents")) {
      return out;
    }
    for (int i = 1; i + 1 < args.size(); i++) {
      if (args.get(i).equals("--run")) {
        for (String a : args.get(i + 1).split(",")) {
          AgentContracts.of(a.trim()).ifPresent(out::add);
        }
      }
    }
    return out;
  }

  private static List<Path> goldenFiles() throws IOException {
    try (Stream<Path> files = Files.walk(GOLDEN)) {
      return files
          .filter(f -> f.toString().endsWith(".yaml"))
          .filter(f -> !f.getParent().getFileName().toString().equals("cases"))
          .sorted()
          .toList();
    }
  }

  private static List<DaemonSet> daemonSets(Path file) throws IOException {
    List<DaemonSet> out = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      Object parsed = Serialization.unmarshal(in);
      // An operand the case does not render has an empty file.
      List<?> items =
          parsed instanceof List<?> l ? l : parsed == null ? List.of() : List.of(parsed);
      for (Object o : items) {
        if (o instanceof DaemonSet ds) {
          out.add(ds);
        }
      }
    }
    return out;
  }

  private static List<Container> containers(PodSpec pod) {
    List<Container> all = new ArrayList<>();
    if (pod.getInitContainers() != null) {
      all.addAll(pod.getInitContainers());
    }
    all.addAll(pod.getContainers());
    return all;
  }
}
