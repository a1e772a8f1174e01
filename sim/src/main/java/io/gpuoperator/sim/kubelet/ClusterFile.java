package io.gpuoperator.sim.kubelet;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.config.ConfigException;
import io.gpuoperator.config.Document;
import io.gpuoperator.config.Documents;
import io.gpuoperator.config.Parse;
import io.gpuoperator.config.Values;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The simulated cluster's nodes, from a small YAML file read through the project's one loading path
 * ({@link Documents}), checked whole before anything starts: every error names the file, the line
 * and the field.
 *
 * <pre>
 * nodes:
 * - name: h100          # with count > 1: h100-0, h100-1 ...
 *   count: 2
 *   profile: H100-SXM5-80GB
 *   gpus: 8
 *   os: {id: ubuntu, versionId: "22.04"}
 *   kernel: 5.15.0-105-generic
 *   cpu: "32"
 *   memory: 256Gi
 *   labels: {team: ml}
 *   mig: {1g.10gb: 2, 3g.40gb: 1}   # MIG devices each GPU starts with
 *   nfd: false          # no NFD labels on these nodes (default true: as where NFD runs)
 *   overrides:          # behaviour of containers on these nodes
 *   - image: nvcr.io/nvidia/driver
 *     behaviour: {exitAfter: 2s, exitCode: 1}   # also readyAfter, ready, writes, waitFor, files
 * - name: cpu
 * faults:               # GPU faults injected, counted from the moment the simulation is ready
 * - node: h100-0
 *   gpu: 1
 *   at: 30s
 *   lost: true          # falls off the bus (then the XID below); recoverAfter: 2m brings it back
 *   xid: 79
 * - node: h100-1
 *   gpu: 0
 *   ecc: doubleBit      # or singleBit; an ECC storm with count and every
 *   count: 20
 *   every: 100ms
 * - {node: h100-1, gpu: 3, thermal: true, recoverAfter: 10s}
 * objects:              # Kubernetes objects created before the policy (e.g. a ConfigMap it names)
 * - apiVersion: v1
 *   kind: ConfigMap
 *   metadata: {name: vgpu-layouts}   # namespaced without a namespace: the operator's
 *   data: {config.yaml: ...}
 * </pre>
 *
 * Bounds: at most {@value #MAX_NODES} nodes in all, {@value #MAX_GPUS} GPUs and 7 MIG devices of a
 * profile per node, node names of at most 63 characters (they are the hostname label's value).
 */
public final class ClusterFile {
  /** Nodes one simulation may run (each has its own kubelet and threads). */
  public static final int MAX_NODES = 500;

  /** GPUs one node may have. */
  public static final int MAX_GPUS = 16;

  private static final Duration MAX_DELAY = Duration.ofHours(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Document document;

  /** Events one fault may send (an ECC storm). */
  public static final int MAX_FAULT_COUNT = 10_000;

  private final List<NodeDescription> nodes;
  private final Map<String, String> paths;
  private final List<FaultSpec> faults;
  private final List<Map<String, Object>> objects;

  private ClusterFile(
      Document document,
      List<NodeDescription> nodes,
      Map<String, String> paths,
      List<FaultSpec> faults,
      List<Map<String, Object>> objects) {
    this.document = document;
    this.nodes = List.copyOf(nodes);
    this.paths = Map.copyOf(paths);
    this.faults = List.copyOf(faults);
    this.objects = List.copyOf(objects);
  }

  /** Reads a cluster file; ConfigException names the file, line, field and what was expected. */
  public static ClusterFile read(Path file) {
    return of(Documents.read(file));
  }

  /** Parses cluster-file YAML; {@code source} names it in errors. */
  public static ClusterFile parse(String yaml, String source) {
    return of(Documents.parse(yaml, source));
  }

  /** The nodes, counts expanded, in file order. */
  public List<NodeDescription> nodes() {
    return nodes;
  }

  /** The GPU faults to inject, in file order (none without a {@code faults:} list). */
  public List<FaultSpec> faults() {
    return faults;
  }

  /**
   * The Kubernetes objects to create before the policy, in file order (none without an {@code
   * objects:} list); each has a string apiVersion, kind and metadata.name. The API server checks
   * the rest when they are created.
   */
  public List<Map<String, Object>> objects() {
    return objects;
  }

  /**
   * An error about a field of a node's entry ({@code profile}, {@code mig} ...), for checks made
   * outside this module (GPU models, MIG layouts), with the entry's line.
   */
  public ConfigException error(String node, String field, String problem) {
    String path = paths.getOrDefault(node, "nodes");
    return document.error(field == null ? path : path + "." + field, problem);
  }

  private static ClusterFile of(Document doc) {
    FileSpec spec = doc.bind(FileSpec.class);
    if (spec.nodes == null || spec.nodes.isEmpty()) {
      throw doc.error("nodes", "expected a non-empty list of nodes");
    }
    List<NodeDescription> out = new ArrayList<>();
    Map<String, String> paths = new HashMap<>();
    Set<String> names = new HashSet<>();
    int total = 0;
    for (int i = 0; i < spec.nodes.size(); i++) {
      NodeSpec n = spec.nodes.get(i);
      String where = "nodes[" + i + "]";
      if (n == null) {
        throw doc.error(where, "expected a node (name, profile, gpus ...), got nothing");
      }
      if (n.name == null || n.name.isBlank()) {
        throw doc.error(where + ".name", "required");
      }
      check(doc, where + ".count", n.count, 1, MAX_NODES);
      total += n.count;
      if (total > MAX_NODES) {
        throw doc.error(where + ".count", "at most " + MAX_NODES + " nodes in all, got " + total);
      }
      int gpus = n.gpus != null ? n.gpus : (n.profile == null ? 0 : 1);
      check(doc, where + ".gpus", gpus, 0, MAX_GPUS);
      if (n.profile == null && gpus > 0) {
        throw doc.error(where + ".gpus", "set without a GPU profile");
      }
      if (n.profile == null && n.mig != null && !n.mig.isEmpty()) {
        throw doc.error(where + ".mig", "set without a GPU profile");
      }
      if (n.mig != null) {
        for (Map.Entry<String, Integer> m : n.mig.entrySet()) {
          if (m.getValue() == null) {
            throw doc.error(where + ".mig." + m.getKey(), "required, a count from 0 to 7");
          }
          check(doc, where + ".mig." + m.getKey(), m.getValue(), 0, 7);
        }
      }
      if (n.os != null) {
        value(doc, where + ".os.id", n.os.id, Parse::labelValue);
        value(doc, where + ".os.versionId", n.os.versionId, Parse::labelValue);
      }
      value(doc, where + ".kernel", n.kernel, ClusterFile::kernel);
      value(doc, where + ".cpu", n.cpu, Parse::quantity);
      value(doc, where + ".memory", n.memory, Parse::quantity);
      if (n.maxPods != 0) {
        check(doc, where + ".maxPods", n.maxPods, 1, 1000);
      }
      value(
          doc, where + ".containerRuntimeVersion", n.containerRuntimeVersion, ClusterFile::runtime);
      // A label without a value (`team:` or `team: null`) is an empty label value, as kubectl
      // label team= gives.
      Map<String, String> labels = new java.util.LinkedHashMap<>();
      if (n.labels != null) {
        for (Map.Entry<String, String> l : n.labels.entrySet()) {
          value(doc, where + ".labels", l.getKey(), Parse::labelKey);
          String v = l.getValue() == null ? "" : l.getValue();
          value(doc, where + ".labels." + l.getKey(), v, Parse::labelValue);
          labels.put(l.getKey(), v);
        }
      }
      List<BehaviourOverride> overrides = new ArrayList<>();
      List<OverrideSpec> specs = n.overrides == null ? List.of() : n.overrides;
      for (int j = 0; j < specs.size(); j++) {
        OverrideSpec o = specs.get(j);
        String ow = where + ".overrides[" + j + "]";
        if (o == null || o.behaviour == null) {
          throw doc.error(ow + ".behaviour", "required");
        }
        BehaviourSpec b = o.behaviour;
        check(doc, ow + ".behaviour.exitCode", b.exitCode, 0, 255);
        DeclaredBehaviour behaviour;
        try {
          behaviour =
              new DeclaredBehaviour(
                  duration(doc, ow + ".behaviour.readyAfter", b.readyAfter),
                  duration(doc, ow + ".behaviour.exitAfter", b.exitAfter),
                  b.exitCode,
                  b.ready,
                  b.writes,
                  b.waitFor,
                  b.files);
        } catch (IllegalArgumentException e) {
          throw fieldError(doc, ow + ".behaviour", e);
        }
        try {
          overrides.add(new BehaviourOverride(o.image, o.container, o.podPrefix, behaviour));
        } catch (IllegalArgumentException e) {
          throw fieldError(doc, ow, e);
        }
      }
      for (int k = 0; k < n.count; k++) {
        String name = n.count == 1 ? n.name : n.name + "-" + k;
        if (name.length() > 63) {
          throw doc.error(
              where + ".name",
              "node name "
                  + Values.quote(name)
                  + " is longer than 63 characters (it is the node's hostname label)");
        }
        value(doc, where + ".name", name, Parse::dnsSubdomain);
        if (!names.add(name)) {
          throw doc.error(where + ".name", "node " + name + " is declared twice");
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
                  labels,
                  overrides,
                  n.mig,
                  n.nfd));
        } catch (IllegalArgumentException e) {
          throw fieldError(doc, where, e);
        }
        paths.put(name, where);
      }
    }
    return new ClusterFile(doc, out, paths, faults(doc, spec.faults, out), objects(doc));
  }

  /** The {@code faults:} list, checked against the nodes: each error names its entry's field. */
  private static List<FaultSpec> faults(
      Document doc, List<FaultEntry> entries, List<NodeDescription> nodes) {
    if (entries == null) {
      return List.of();
    }
    Map<String, NodeDescription> byName = new HashMap<>();
    nodes.forEach(n -> byName.put(n.name(), n));
    List<FaultSpec> out = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      FaultEntry f = entries.get(i);
      String where = "faults[" + i + "]";
      if (f == null) {
        throw doc.error(
            where, "expected a fault (node, gpu, at, xid/ecc/lost/thermal), got nothing");
      }
      if (f.node == null || f.node.isBlank()) {
        throw doc.error(where + ".node", "required: the name of a node declared above");
      }
      NodeDescription n = byName.get(f.node);
      if (n == null) {
        throw doc.error(
            where + ".node",
            "no node "
                + Values.quote(f.node)
                + " is declared (a node with count: 2 is named <name>-0 and <name>-1)");
      }
      if (n.gpus() == 0) {
        throw doc.error(where + ".node", "node " + f.node + " has no GPU");
      }
      if (f.gpu == null) {
        throw doc.error(where + ".gpu", "required: a GPU index from 0 to " + (n.gpus() - 1));
      }
      check(doc, where + ".gpu", f.gpu, 0, n.gpus() - 1);
      boolean lost = Boolean.TRUE.equals(f.lost);
      boolean thermal = Boolean.TRUE.equals(f.thermal);
      if (f.xid != null) {
        check(doc, where + ".xid", f.xid, 1, 1_000);
      }
      if (f.ecc != null
          && !f.ecc.equals(FaultSpec.DOUBLE_BIT)
          && !f.ecc.equals(FaultSpec.SINGLE_BIT)) {
        throw doc.error(
            where + ".ecc",
            "expected "
                + FaultSpec.DOUBLE_BIT
                + " or "
                + FaultSpec.SINGLE_BIT
                + ", got "
                + Values.quote(f.ecc));
      }
      if (f.xid != null && f.ecc != null) {
        throw doc.error(where + ".ecc", "give xid or ecc, not both (two faults: two entries)");
      }
      if (lost && f.ecc != null) {
        throw doc.error(
            where + ".ecc",
            "a GPU fallen off the bus counts no ECC errors (lost: true sends an xid)");
      }
      if (lost && thermal) {
        throw doc.error(where + ".thermal", "give lost or thermal, not both");
      }
      boolean events = f.xid != null || f.ecc != null;
      if (!events && !lost && !thermal) {
        throw doc.error(where, "expected one of xid, ecc, lost: true or thermal: true");
      }
      int count = f.count == null ? 1 : f.count;
      check(doc, where + ".count", count, 1, MAX_FAULT_COUNT);
      if (!events && (f.count != null || f.every != null)) {
        throw doc.error(
            where + (f.count != null ? ".count" : ".every"),
            "repeats an xid or ecc event: give one");
      }
      Duration every = duration(doc, where + ".every", f.every);
      if (every == null) {
        every = Duration.ofSeconds(1);
      } else if (every.toMillis() < 10) {
        throw doc.error(where + ".every", "expected at least 10ms, got " + Values.quote(f.every));
      }
      Duration recoverAfter = duration(doc, where + ".recoverAfter", f.recoverAfter);
      if (recoverAfter != null && !lost && !thermal) {
        throw doc.error(
            where + ".recoverAfter",
            "ends a state (lost: true or thermal: true); an XID or ECC event recovers after the"
                + " plugin's recovery period");
      }
      Duration at = duration(doc, where + ".at", f.at);
      out.add(
          new FaultSpec(
              f.node,
              f.gpu,
              at == null ? Duration.ZERO : at,
              f.xid == null ? 0 : f.xid,
              f.ecc,
              count,
              every,
              lost,
              thermal,
              recoverAfter));
    }
    return out;
  }

  private static void check(Document doc, String path, long value, long min, long max) {
    if (value < min || value > max) {
      throw doc.error(
          path, "expected a whole number from " + min + " to " + max + ", got " + value);
    }
  }

  private static void value(
      Document doc, String path, String value, Function<String, String> parser) {
    if (value == null) {
      return;
    }
    try {
      parser.apply(value);
    } catch (IllegalArgumentException e) {
      throw doc.error(path, e.getMessage());
    }
  }

  private static Duration duration(Document doc, String path, String text) {
    if (text == null) {
      return null;
    }
    try {
      Duration d = DeclaredBehaviour.parseDuration(text);
      if (d.compareTo(MAX_DELAY) > 0) {
        throw new IllegalArgumentException(
            "expected a duration up to 1h, got " + Values.quote(text));
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw doc.error(path, e.getMessage());
    }
  }

  /** A kernel version as NFD labels carry it: a label value, e.g. 5.15.0-105-generic. */
  private static String kernel(String v) {
    if (v.isEmpty() || !v.matches("\\d+\\.\\d+[-A-Za-z0-9_.]*") || v.length() > 63) {
      throw new IllegalArgumentException(
          "expected a kernel version such as 5.15.0-105-generic (at most 63 letters, digits,"
              + " '-', '_' and '.'), got "
              + Values.quote(v));
    }
    return v;
  }

  /** A runtime version as the kubelet reports it: {@code containerd://1.7.24}. */
  private static String runtime(String v) {
    if (v.length() > 128 || !v.matches("[a-z0-9.-]+://[-A-Za-z0-9_.+~]+")) {
      throw new IllegalArgumentException(
          "expected <runtime>://<version> such as containerd://1.7.24, got " + Values.quote(v));
    }
    return v;
  }

  /** A record's "field: problem" message as an error on that field. */
  private static ConfigException fieldError(Document doc, String path, IllegalArgumentException e) {
    String m = e.getMessage() == null ? "invalid value" : e.getMessage();
    var k = java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9_.]*): (.*)").matcher(m);
    if (k.matches() && !k.group(1).contains(" ")) {
      return doc.error(path + "." + k.group(1), k.group(2));
    }
    return doc.error(path, m);
  }

  // Plain binding classes: the file's schema. Converted to NodeDescription above.

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> objects(Document doc) {
    JsonNode list = doc.at("objects");
    if (list.isMissingNode() || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw doc.error(
          "objects", "expected a list of Kubernetes objects (apiVersion, kind, metadata)");
    }
    List<Map<String, Object>> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < list.size(); i++) {
      String where = "objects[" + i + "]";
      JsonNode o = list.get(i);
      if (!o.isObject()) {
        throw doc.error(where, "expected a Kubernetes object (apiVersion, kind, metadata)");
      }
      for (String field : List.of("apiVersion", "kind", "metadata.name")) {
        JsonNode v = o.at("/" + field.replace('.', '/'));
        if (!v.isTextual() || v.asText().isBlank()) {
          throw doc.error(where + "." + field, "required, a string");
        }
      }
      String key =
          o.get("apiVersion").asText()
              + "/"
              + o.get("kind").asText()
              + "/"
              + o.at("/metadata/namespace").asText("")
              + "/"
              + o.at("/metadata/name").asText();
      if (!seen.add(key)) {
        throw doc.error(where + ".metadata.name", "a second object " + key);
      }
      out.add(JSON.convertValue(o, Map.class));
    }
    return out;
  }

  static final class FileSpec {
    @JsonProperty public List<NodeSpec> nodes;
    @JsonProperty public List<FaultEntry> faults;

    // Read from the document as it is (any kind, any field): see objects(Document).
    @JsonProperty public Object objects;
  }

  static final class FaultEntry {
    @JsonProperty public String node;
    @JsonProperty public Integer gpu;
    @JsonProperty public String at;
    @JsonProperty public Integer xid;
    @JsonProperty public String ecc;
    @JsonProperty public Integer count;
    @JsonProperty public String every;
    @JsonProperty public Boolean lost;
    @JsonProperty public Boolean thermal;
    @JsonProperty public String recoverAfter;
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
    @JsonProperty public boolean nfd = true;
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
