package io.gpuoperator.sim.kubelet;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The simulated cluster's nodes, from a small YAML file:
 *
 * <pre>
 * nodes:
 * - name: h100          # with count > 1: h100-0, h100-1 ...
 *   count: 2
 *   profile: H100-SXM5-80GB
 *   gpus: 8
 *   os: {id: ubuntu, versionId: "22.04"}
 *   kernel: 5.15.0-105-generic
 *   labels: {team: ml}
 *   mig: {1g.10gb: 2, 3g.40gb: 1}   # MIG devices each GPU starts with
 *   overrides:          # behaviour of containers on these nodes
 *   - image: nvcr.io/nvidia/driver
 *     behaviour: {exitAfter: 2s, exitCode: 1}   # also readyAfter, ready, writes, waitFor, files
 * - name: cpu
 * </pre>
 */
public final class ClusterFile {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  private ClusterFile() {}

  /** Reads a cluster file; errors name the file, line, field and what was expected. */
  public static List<NodeDescription> read(Path file) throws IOException {
    return parse(Files.readString(file), file.toString());
  }

  /** Parses cluster-file YAML; {@code source} names it in errors. */
  public static List<NodeDescription> parse(String yaml, String source) {
    FileSpec spec;
    try {
      spec = YAML.readValue(yaml, FileSpec.class);
    } catch (JsonMappingException e) {
      throw new IllegalArgumentException(
          source
              + ":"
              + line(e.getLocation())
              + ": field "
              + path(e)
              + ": "
              + e.getOriginalMessage(),
          e);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          source + ":" + line(e.getLocation()) + ": not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (spec == null || spec.nodes == null || spec.nodes.isEmpty()) {
      throw new IllegalArgumentException(
          source + ": field nodes: expected a non-empty list of nodes");
    }
    List<NodeDescription> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < spec.nodes.size(); i++) {
      NodeSpec n = spec.nodes.get(i);
      String where = source + ": nodes[" + i + "]";
      if (n.name == null) {
        throw new IllegalArgumentException(where + ".name: required");
      }
      if (n.count < 1) {
        throw new IllegalArgumentException(where + ".count: expected >= 1, got " + n.count);
      }
      List<BehaviourOverride> overrides = new ArrayList<>();
      for (int j = 0; j < n.overrides.size(); j++) {
        OverrideSpec o = n.overrides.get(j);
        String ow = where + ".overrides[" + j + "]";
        try {
          overrides.add(
              new BehaviourOverride(o.image, o.container, o.podPrefix, behaviour(o.behaviour, ow)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(ow + ": " + e.getMessage(), e);
        }
      }
      int gpus = n.gpus != null ? n.gpus : (n.profile == null ? 0 : 1);
      for (int k = 0; k < n.count; k++) {
        String name = n.count == 1 ? n.name : n.name + "-" + k;
        if (!names.add(name)) {
          throw new IllegalArgumentException(where + ".name: node " + name + " is declared twice");
        }
        try {
          out.add(
              new NodeDescription(
                  name,
                  n.profile,
                  gpus,
                  n.os == null ? null : n.os.id,
                  n.os == null ? null : n.os.versionId,
                  n.kernel,
                  n.cpu,
                  n.memory,
                  n.maxPods,
                  n.containerRuntimeVersion,
                  n.labels,
                  overrides,
                  n.mig));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
      }
    }
    return out;
  }

  private static DeclaredBehaviour behaviour(BehaviourSpec b, String where) {
    if (b == null) {
      throw new IllegalArgumentException("behaviour: required");
    }
    return new DeclaredBehaviour(
        duration(b.readyAfter, where + ".behaviour.readyAfter"),
        duration(b.exitAfter, where + ".behaviour.exitAfter"),
        b.exitCode,
        b.ready,
        b.writes,
        b.waitFor,
        b.files);
  }

  private static java.time.Duration duration(String text, String field) {
    if (text == null) {
      return null;
    }
    try {
      return DeclaredBehaviour.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
    }
  }

  private static String line(JsonLocation loc) {
    return loc == null ? "?" : Integer.toString(loc.getLineNr());
  }

  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }

  // Plain binding classes: the file's schema. Converted to NodeDescription above.

  static final class FileSpec {
    @JsonProperty public List<NodeSpec> nodes;
  }

  static final class NodeSpec {
    @JsonProperty public String name;
    @JsonProperty public int count = 1;
    @JsonProperty public String profile;
    @JsonProperty public Integer gpus;
    @JsonProperty public OsSpec os;
    @JsonProperty public String kernel;
    @JsonProperty public String cpu;
    @JsonProperty public String memory;
    @JsonProperty public int maxPods;
    @JsonProperty public String containerRuntimeVersion;
    @JsonProperty public Map<String, String> labels;
    @JsonProperty public Map<String, Integer> mig;
    @JsonProperty public List<OverrideSpec> overrides = List.of();
  }

  static final class OsSpec {
    @JsonProperty public String id;
    @JsonProperty public String versionId;
  }

  static final class OverrideSpec {
    @JsonProperty public String image;
    @JsonProperty public String container;
    @JsonProperty public String podPrefix;
    @JsonProperty public BehaviourSpec behaviour;
  }

  static final class BehaviourSpec {
    @JsonProperty public String readyAfter;
    @JsonProperty public String exitAfter;
    @JsonProperty public int exitCode;
    @JsonProperty public boolean ready = true;
    @JsonProperty public List<String> writes;
    @JsonProperty public List<String> waitFor;
    @JsonProperty public Map<String, String> files;
  }
}
