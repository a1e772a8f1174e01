package io.gpuoperator.node.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A Container Device Interface spec, as the CDI JSON schema names its fields: a {@code kind}
 * ({@code <vendor>/<class>}), named devices with their container edits, and edits every device of
 * the spec shares. Immutable; serialised by {@link CdiSpecFiles}. Shared by every agent that writes
 * CDI specs (toolkit, device plugin, DRA driver).
 *
 * @param cdiVersion the CDI spec version the content needs
 * @param kind {@code <vendor>/<class>}, e.g. {@code nvidia.com/gpu}
 * @param devices the named devices, in the order written
 * @param containerEdits edits applied whenever any device of the spec is injected
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"cdiVersion", "kind", "devices", "containerEdits"})
public record CdiSpec(
    String cdiVersion, String kind, List<Device> devices, ContainerEdits containerEdits) {

  /**
   * The version written: the oldest that allows device names starting with a digit ({@code "0"},
   * {@code "0:1"}), so that containerd 1.7's CDI library (which knows up to 0.5.0/0.6.0) reads it.
   */
  public static final String VERSION = "0.5.0";

  public CdiSpec {
    devices = List.copyOf(devices);
    containerEdits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
  }

  /** The vendor part of the kind, e.g. {@code management.nvidia.com}. */
  public String vendor() {
    return kind.substring(0, kind.indexOf('/'));
  }

  /** The class part of the kind, e.g. {@code gpu}. */
  public String deviceClass() {
    return kind.substring(kind.indexOf('/') + 1);
  }

  /** The fully qualified name of one of its devices, e.g. {@code nvidia.com/gpu=0}. */
  public String qualifiedName(String device) {
    return kind + "=" + device;
  }

  /** Device names in order. */
  public List<String> deviceNames() {
    return devices.stream().map(Device::name).toList();
  }

  /** One device: its name (unique in the spec) and what injecting it does. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"name", "containerEdits"})
  public record Device(String name, ContainerEdits containerEdits) {}

  /** Changes to a container: environment, device nodes, bind mounts and OCI hooks. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"env", "deviceNodes", "mounts", "hooks"})
  public record ContainerEdits(
      List<String> env, List<DeviceNode> deviceNodes, List<Mount> mounts, List<Hook> hooks) {
    /** No edits. */
    public static final ContainerEdits EMPTY =
        new ContainerEdits(List.of(), List.of(), List.of(), List.of());

    public ContainerEdits {
      env = env == null ? List.of() : List.copyOf(env);
      deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
      mounts = mounts == null ? List.of() : List.copyOf(mounts);
      hooks = hooks == null ? List.of() : List.copyOf(hooks);
    }

    /** Only device nodes. */
    public static ContainerEdits ofDeviceNodes(List<DeviceNode> nodes) {
      return new ContainerEdits(List.of(), nodes, List.of(), List.of());
    }

    /** This and {@code other}, each list in order with duplicates dropped. */
    public ContainerEdits plus(ContainerEdits other) {
      return new ContainerEdits(
          union(env, other.env),
          union(deviceNodes, other.deviceNodes),
          union(mounts, other.mounts),
          union(hooks, other.hooks));
    }

    private static <T> List<T> union(List<T> a, List<T> b) {
      LinkedHashSet<T> out = new LinkedHashSet<>(a);
      out.addAll(b);
      return new ArrayList<>(out);
    }
  }

  /**
   * A device node: {@code path} in the container, {@code hostPath} on the host (absent: same as
   * path).
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"path", "hostPath"})
  public record DeviceNode(String path, String hostPath) {}

  /** A bind mount of {@code hostPath} at {@code containerPath}. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"hostPath", "containerPath", "options"})
  public record Mount(String hostPath, String containerPath, List<String> options) {
    public Mount {
      options = options == null ? List.of() : List.copyOf(options);
    }
  }

  /**
   * An OCI hook. {@code env} is the hook's whole environment: the runtime starts it with exactly
   * these variables, never with the container's (the lesson of CVE-2025-23266).
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"hookName", "path", "args", "env"})
  public record Hook(String hookName, String path, List<String> args, List<String> env) {
    public Hook {
      args = args == null ? List.of() : List.copyOf(args);
      env = env == null ? List.of() : List.copyOf(env);
    }
  }
}
