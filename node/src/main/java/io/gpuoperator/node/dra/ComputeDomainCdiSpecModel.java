package io.gpuoperator.node.dra;

import io.gpuoperator.node.cdi.CdiSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The transient CDI spec of one claim of the {@code compute-domain.nvidia.com} driver (vendor
 * {@code k8s.compute-domain.nvidia.com}, class {@code claim}, file {@code
 * k8s.compute-domain.nvidia.com-claim_<uid>.json}), with NVIDIA's container edits: a channel device
 * gets the character device node of each IMEX channel it stands for ({@code
 * /dev/nvidia-caps-imex-channels/channel<n>}, major of {@code nvidia-caps-imex-channels}, minor
 * {@code n}, mode 0666); the IMEX daemon's device gets the domain's identity in its environment,
 * the domain's directory on the node at {@code /imexd} and the {@code fabric-imex-mgmt} capability
 * device. Pure.
 */
public final class ComputeDomainCdiSpecModel {
  /** The channel nodes' file mode, NVIDIA's: every user of the container may open them. */
  static final int CHANNEL_FILE_MODE = 0666;

  private ComputeDomainCdiSpecModel() {}

  /** The spec's file name. */
  public static String fileName(String claimUid) {
    return ComputeDomainNames.CDI_VENDOR + "-" + DraNames.CDI_CLASS + "_" + claimUid + ".json";
  }

  /** The fully qualified CDI device ID of a claim's device, handed to the kubelet. */
  public static String deviceId(String claimUid, String device) {
    return ComputeDomainNames.CDI_VENDOR
        + "/"
        + DraNames.CDI_CLASS
        + "="
        + ClaimCdiSpecModel.deviceName(claimUid, device);
  }

  /** The edits of a channel device: the device nodes of these channels. */
  public static Map<String, Object> channelEdits(List<Integer> channels, int major) {
    List<Map<String, Object>> nodes = new ArrayList<>();
    for (int n : channels) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("path", ComputeDomainNames.CHANNELS_DIR + "/channel" + n);
      node.put("type", "c");
      node.put("major", major);
      node.put("minor", n);
      node.put("fileMode", CHANNEL_FILE_MODE);
      nodes.add(node);
    }
    return Map.of("deviceNodes", nodes);
  }

  /**
   * The edits of the IMEX daemon's device: NVIDIA's variables naming the clique and the domain, the
   * domain's directory on the node, read-write, and, on a node in a clique, the fabric management
   * capability device the IMEX daemon opens.
   *
   * @param management the capability, or null where the node has no clique (no IMEX to run)
   */
  public static Map<String, Object> daemonEdits(
      String clique,
      String domainUid,
      String domainName,
      String domainNamespace,
      Path dir,
      ImexManagementDevice management) {
    Map<String, Object> edits = new LinkedHashMap<>();
    edits.put(
        "env",
        List.of(
            ComputeDomainNames.ENV_CLIQUE_ID + "=" + clique,
            ComputeDomainNames.ENV_DOMAIN_UUID + "=" + domainUid,
            ComputeDomainNames.ENV_DOMAIN_NAME + "=" + domainName,
            ComputeDomainNames.ENV_DOMAIN_NAMESPACE + "=" + domainNamespace));
    if (management != null) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("path", management.path());
      node.put("type", "c");
      node.put("major", management.major());
      node.put("minor", management.minor());
      node.put("fileMode", management.fileMode());
      edits.put("deviceNodes", List.of(node));
    }
    edits.put(
        "mounts",
        List.of(
            Map.of(
                "hostPath",
                dir.toString(),
                "containerPath",
                ComputeDomainNames.DAEMON_CONTAINER_DIR,
                "options",
                List.of("rw", "nosuid", "nodev", "bind"))));
    return edits;
  }

  /**
   * The IMEX daemon's configuration template, written as {@value
   * ComputeDomainNames#DAEMON_CONFIG_TEMPLATE} into the domain's directory: NVIDIA's daemon renders
   * it (a Go template over its pod IP, {@code IMEXCmdBindInterfaceIP}, and its nodes file, {@code
   * IMEXDaemonNodesConfigPath}) before it starts IMEX, and cannot start without it.
   */
  public static byte[] daemonConfigTemplate() {
    try (InputStream in =
        ComputeDomainCdiSpecModel.class.getResourceAsStream(
            ComputeDomainNames.DAEMON_CONFIG_TEMPLATE)) {
      if (in == null) {
        throw new IllegalStateException(
            "resource " + ComputeDomainNames.DAEMON_CONFIG_TEMPLATE + " missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The spec as a JSON-ready map.
   *
   * @param edits each allocated device's container edits, by device name, in result order
   */
  public static Map<String, Object> build(String claimUid, Map<String, Map<String, Object>> edits) {
    List<Map<String, Object>> devices = new ArrayList<>();
    edits.forEach(
        (device, e) -> {
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("name", ClaimCdiSpecModel.deviceName(claimUid, device));
          d.put("containerEdits", e);
          devices.add(d);
        });
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("cdiVersion", CdiSpec.VERSION);
    spec.put("kind", ComputeDomainNames.CDI_VENDOR + "/" + DraNames.CDI_CLASS);
    spec.put("devices", devices);
    return spec;
  }
}
