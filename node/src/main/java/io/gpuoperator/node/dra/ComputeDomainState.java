package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuoperator.api.resource.v1beta1.ComputeDomain;
import io.gpuoperator.api.resource.v1beta1.ComputeDomainStatus;
import io.gpuoperator.config.Values;
import io.gpuoperator.node.files.AtomicFile;
import io.gpuoperator.node.gpu.GpuFabric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code compute-domain.nvidia.com} driver's claims on this node, prepared as NVIDIA's
 * compute-domain kubelet plugin prepares them:
 *
 * <ul>
 *   <li>a <b>channel</b> claim (the workload's; {@code ComputeDomainChannelConfig{domainID,
 *       allocationMode}}) must be in the domain's namespace; the node gets the label {@code
 *       resource.nvidia.com/computeDomain=<domain UID>}, which brings the domain's IMEX daemon
 *       there; the claim is ready only once that daemon is Ready in the domain's status (until then
 *       prepare fails and the kubelet tries again); its CDI spec gets the channel's device node, or
 *       every channel's with {@code allocationMode: All};
 *   <li>a <b>daemon</b> claim (the IMEX daemon's; {@code ComputeDomainDaemonConfig{domainID}}) gets
 *       the domain's identity and clique in its environment and the domain's directory.
 * </ul>
 *
 * Unprepare removes the CDI spec and, when the last channel claim of the domain on this node goes,
 * the node's label. Every step is recorded in the {@link ComputeDomainCheckpoint} first, so a
 * restarted plugin still unprepares. Bad input (a domain that does not exist, a channel beyond the
 * driver's, a missing or wrong configuration) fails the claim with a message naming it.
 */
public final class ComputeDomainState implements DraPluginService.Preparer {
  private static final Logger LOG = LoggerFactory.getLogger(ComputeDomainState.class);

  private final String pool;
  private final String clique;
  private final ComputeDomainCluster cluster;
  private final Path checkpointFile;
  private final Path cdiDir;
  private final Path domainsDir;
  private final Supplier<Integer> channelsMajor;
  private final Supplier<ImexManagementDevice> management;
  private ComputeDomainCheckpoint checkpoint;

  /**
   * @param pool the node name
   * @param clique the node's NVLink clique; null or empty when its GPUs have none
   * @param cdiDir where claim CDI specs go
   * @param pluginDir the driver's own directory (checkpoint, the daemons' domain directories)
   * @param channelsMajor the major of {@code nvidia-caps-imex-channels}, read when a channel is
   *     prepared (an IllegalStateException naming the file when the driver has none)
   * @param management the {@code fabric-imex-mgmt} capability device, read when a daemon claim is
   *     prepared on a node in a clique (an IllegalStateException naming the file it could not read)
   */
  public ComputeDomainState(
      String pool,
      String clique,
      ComputeDomainCluster cluster,
      Path cdiDir,
      Path pluginDir,
      Supplier<Integer> channelsMajor,
      Supplier<ImexManagementDevice> management)
      throws IOException {
    this.pool = pool;
    this.clique = clique == null ? "" : clique;
    this.cluster = cluster;
    this.checkpointFile = pluginDir.resolve(DraNames.CHECKPOINT_FILE);
    this.cdiDir = cdiDir;
    this.domainsDir = pluginDir.resolve(ComputeDomainNames.DOMAINS_DIR);
    this.channelsMajor = channelsMajor;
    this.management = management;
    this.checkpoint = ComputeDomainCheckpoint.load(checkpointFile);
  }

  @Override
  public String driver() {
    return ComputeDomainNames.DRIVER;
  }

  @Override
  public String pool() {
    return pool;
  }

  /** The node's clique; empty when it has none. */
  public String clique() {
    return clique;
  }

  /** The devices the node publishes. */
  public List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices() {
    return ComputeDomainDevicesModel.devices(clique);
  }

  /** The current checkpoint. */
  public synchronized ComputeDomainCheckpoint checkpoint() {
    return checkpoint;
  }

  @Override
  public synchronized List<Checkpoint.PreparedDevice> prepared(String uid) {
    ComputeDomainCheckpoint.Claim c = checkpoint.claims().get(uid);
    return c != null && c.completed() ? c.devices() : null;
  }

  @Override
  public synchronized List<Checkpoint.PreparedDevice> prepare(ClaimAllocation claim)
      throws IOException {
    List<Checkpoint.PreparedDevice> done = prepared(claim.uid());
    if (done != null) {
      return done;
    }
    if (clique.isEmpty()) {
      throw new IllegalArgumentException(
          "ResourceClaim "
              + claim.ref()
              + ": node "
              + pool
              + " is in no NVLink fabric clique, so it has no IMEX channels to prepare");
    }
    if (claim.results().isEmpty()) {
      throw new IllegalArgumentException(
          "ResourceClaim "
              + claim.ref()
              + ": no device of "
              + ComputeDomainNames.DRIVER
              + " is allocated to it on node "
              + pool);
    }
    // Every result's device and configuration first: a bad claim changes nothing.
    List<Planned> plan = new ArrayList<>();
    for (ClaimAllocation.Result r : claim.results()) {
      plan.add(plan(claim, r));
    }
    String domainUid = plan.get(0).config().domainId();
    for (Planned p : plan) {
      if (!p.config().domainId().equals(domainUid)) {
        throw new IllegalArgumentException(
            "ResourceClaim "
                + claim.ref()
                + ": its devices name two ComputeDomains ("
                + domainUid
                + ", "
                + p.config().domainId()
                + "); a claim belongs to one");
      }
    }
    ComputeDomain domain = cluster.domain(domainUid);
    if (domain == null) {
      throw new IllegalArgumentException(
          "ResourceClaim "
              + claim.ref()
              + ": "
              + plan.get(0).config().where()
              + ": domainID: no ComputeDomain has UID "
              + domainUid
              + " (deleted, or the claim was written by hand with a wrong UID?)");
    }
    boolean channel = plan.stream().anyMatch(Planned::channel);
    String domainRef = domain.getMetadata().getNamespace() + "/" + domain.getMetadata().getName();
    if (channel && !domain.getMetadata().getNamespace().equals(claim.namespace())) {
      throw new IllegalArgumentException(
          "ResourceClaim "
              + claim.ref()
              + ": ComputeDomain "
              + domainRef
              + " is in namespace "
              + domain.getMetadata().getNamespace()
              + "; a channel claim must be in its domain's namespace");
    }
    save(
        checkpoint.with(
            claim.uid(),
            new ComputeDomainCheckpoint.Claim(
                claim.namespace(), claim.name(), domainUid, channel, false, List.of())));
    if (channel) {
      label(claim, domainUid);
      if (!readyHere(domain)) {
        throw new IllegalStateException(
            "ResourceClaim "
                + claim.ref()
                + ": the IMEX daemon of ComputeDomain "
                + domainRef
                + " is not Ready on node "
                + pool
                + " yet (the node is labelled "
                + ComputeDomainNames.NODE_LABEL
                + "="
                + domainUid
                + ", so its daemon starts there); the kubelet tries again");
      }
    }
    Map<String, Map<String, Object>> edits = new LinkedHashMap<>();
    for (Planned p : plan) {
      if (p.channel()) {
        List<Integer> channels =
            ComputeDomainNames.ALLOCATION_ALL.equals(p.config().allocationMode())
                ? IntStream.range(0, ComputeDomainNames.MAX_CHANNELS).boxed().toList()
                : List.of(p.channelNumber());
        edits.put(p.device(), ComputeDomainCdiSpecModel.channelEdits(channels, major()));
      } else {
        Path dir = domainsDir.resolve(domainUid);
        Files.createDirectories(dir);
        AtomicFile.write(
            dir.resolve(ComputeDomainNames.DAEMON_CONFIG_TEMPLATE),
            ComputeDomainCdiSpecModel.daemonConfigTemplate());
        edits.put(
            p.device(),
            ComputeDomainCdiSpecModel.daemonEdits(
                clique,
                domainUid,
                domain.getMetadata().getName(),
                domain.getMetadata().getNamespace(),
                dir,
                clique.isEmpty() ? null : management.get()));
      }
    }
    AtomicFile.writeJson(
        cdiDir.resolve(ComputeDomainCdiSpecModel.fileName(claim.uid())),
        ComputeDomainCdiSpecModel.build(claim.uid(), edits));
    List<Checkpoint.PreparedDevice> devices = new ArrayList<>();
    for (Planned p : plan) {
      devices.add(
          new Checkpoint.PreparedDevice(
              List.of(p.request()),
              p.device(),
              -1,
              null,
              null,
              null,
              null,
              List.of(ComputeDomainCdiSpecModel.deviceId(claim.uid(), p.device()))));
    }
    save(
        checkpoint.with(
            claim.uid(),
            new ComputeDomainCheckpoint.Claim(
                claim.namespace(), claim.name(), domainUid, channel, true, devices)));
    LOG.info(
        "ResourceClaim {}: prepared {} of ComputeDomain {} on node {}",
        claim.ref(),
        devices.stream().map(Checkpoint.PreparedDevice::device).toList(),
        domainRef,
        pool);
    return devices;
  }

  @Override
  public synchronized void unprepare(String uid) throws IOException {
    ComputeDomainCheckpoint.Claim c = checkpoint.claims().get(uid);
    if (c == null) {
      return;
    }
    AtomicFile.delete(cdiDir.resolve(ComputeDomainCdiSpecModel.fileName(uid)));
    if (c.channel() && !checkpoint.otherChannelOf(c.domainUid(), uid)) {
      if (c.domainUid().equals(cluster.label(ComputeDomainNames.NODE_LABEL))) {
        cluster.setLabel(ComputeDomainNames.NODE_LABEL, null);
        LOG.info(
            "node {}: label {} removed (no claim of ComputeDomain {} left)",
            pool,
            ComputeDomainNames.NODE_LABEL,
            c.domainUid());
      }
    }
    save(checkpoint.without(uid));
    LOG.info("ResourceClaim {}/{}: unprepared on node {}", c.namespace(), c.name(), pool);
  }

  /** One allocated device, checked, with the configuration that applies to it. */
  private record Planned(
      String request, String device, boolean channel, int channelNumber, Config config) {}

  /**
   * A decoded opaque configuration.
   *
   * @param where where the user wrote it
   */
  private record Config(String where, String domainId, String allocationMode) {}

  private Planned plan(ClaimAllocation claim, ClaimAllocation.Result r) {
    String device = r.device();
    int n = ComputeDomainDevicesModel.channelNumber(device);
    boolean channel = n >= 0;
    if (channel && n >= ComputeDomainNames.MAX_CHANNELS) {
      throw new IllegalArgumentException(
          about(claim, r)
              + ": channel "
              + n
              + " is beyond the last IMEX channel, "
              + (ComputeDomainNames.MAX_CHANNELS - 1));
    }
    if (!channel && !device.equals(ComputeDomainNames.daemon(0))) {
      throw new IllegalArgumentException(
          about(claim, r)
              + " is not a device of "
              + ComputeDomainNames.DRIVER
              + " on node "
              + pool
              + " (it has "
              + ComputeDomainNames.channel(0)
              + " to "
              + ComputeDomainNames.channel(ComputeDomainNames.MAX_CHANNELS - 1)
              + " and "
              + ComputeDomainNames.daemon(0)
              + ")");
    }
    String kind =
        channel ? ComputeDomainNames.KIND_CHANNEL_CONFIG : ComputeDomainNames.KIND_DAEMON_CONFIG;
    ClaimAllocation.Config applied = null;
    for (ClaimAllocation.Config c : claim.configs()) {
      if (c.appliesTo(r)) {
        applied = c; // a later entry wins
      }
    }
    if (applied == null) {
      throw new IllegalArgumentException(
          about(claim, r)
              + " has no opaque configuration of driver "
              + ComputeDomainNames.DRIVER
              + "; expected a "
              + kind
              + " naming its ComputeDomain (domainID)");
    }
    return new Planned(r.request(), device, channel, n, config(claim, applied, kind));
  }

  /** {@code ResourceClaim ns/name: device d (request r)}, how messages name a result. */
  private static String about(ClaimAllocation claim, ClaimAllocation.Result r) {
    return "ResourceClaim "
        + claim.ref()
        + ": device "
        + r.device()
        + " (request "
        + r.request()
        + ")";
  }

  private static Config config(ClaimAllocation claim, ClaimAllocation.Config c, String kind) {
    JsonNode p = c.parameters();
    String prefix = "ResourceClaim " + claim.ref() + ": " + c.where() + ": opaque parameters: ";
    String apiVersion = p.path("apiVersion").asText();
    if (!DraNames.CONFIG_API_VERSION.equals(apiVersion)) {
      throw new IllegalArgumentException(
          prefix
              + "apiVersion: expected "
              + DraNames.CONFIG_API_VERSION
              + ", got "
              + Values.quote(apiVersion));
    }
    String got = p.path("kind").asText();
    if (!kind.equals(got)) {
      throw new IllegalArgumentException(
          prefix + "kind: expected " + kind + " for this device, got " + Values.quote(got));
    }
    String domain = p.path("domainID").asText();
    if (domain.isEmpty()) {
      throw new IllegalArgumentException(prefix + "domainID: required, the ComputeDomain's UID");
    }
    String mode = null;
    if (kind.equals(ComputeDomainNames.KIND_CHANNEL_CONFIG)) {
      mode = p.path("allocationMode").asText(ComputeDomainNames.ALLOCATION_SINGLE);
      if (mode.isEmpty()) {
        mode = ComputeDomainNames.ALLOCATION_SINGLE;
      }
      if (!mode.equals(ComputeDomainNames.ALLOCATION_SINGLE)
          && !mode.equals(ComputeDomainNames.ALLOCATION_ALL)) {
        throw new IllegalArgumentException(
            prefix + "allocationMode: expected Single or All, got " + Values.quote(mode));
      }
    }
    return new Config(c.where(), domain, mode);
  }

  private void label(ClaimAllocation claim, String domainUid) {
    String current = cluster.label(ComputeDomainNames.NODE_LABEL);
    if (current != null && !current.isEmpty() && !current.equals(domainUid)) {
      throw new IllegalArgumentException(
          "ResourceClaim "
              + claim.ref()
              + ": node "
              + pool
              + " already serves ComputeDomain "
              + current
              + " (label "
              + ComputeDomainNames.NODE_LABEL
              + "); a node serves one ComputeDomain at a time");
    }
    // The clique first: the domain label brings the daemon, whose status entry names the clique
    // from this label, and NVIDIA's daemon lists as peers only the daemons of its own clique. A
    // GPUCluster runs no feature discovery to write it; where one runs, it writes the same value.
    if (!clique.isEmpty() && !clique.equals(cluster.label(GpuFabric.LABEL))) {
      cluster.setLabel(GpuFabric.LABEL, clique);
      LOG.info("node {}: labelled {}={}", pool, GpuFabric.LABEL, clique);
    }
    if (current == null || current.isEmpty()) {
      cluster.setLabel(ComputeDomainNames.NODE_LABEL, domainUid);
      LOG.info("node {}: labelled {}={}", pool, ComputeDomainNames.NODE_LABEL, domainUid);
    }
  }

  private boolean readyHere(ComputeDomain domain) {
    ComputeDomainStatus s = domain.getStatus();
    if (s == null || s.nodes == null) {
      return false;
    }
    return s.nodes.stream()
        .anyMatch(n -> pool.equals(n.name) && n.status == ComputeDomainStatus.Readiness.Ready);
  }

  private int major() {
    return channelsMajor.get();
  }

  private void save(ComputeDomainCheckpoint next) throws IOException {
    next.save(checkpointFile);
    checkpoint = next;
  }
}
