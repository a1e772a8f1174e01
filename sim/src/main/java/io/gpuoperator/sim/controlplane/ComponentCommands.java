package io.gpuoperator.sim.controlplane;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of each control-plane binary, on 127.0.0.1 ports and files under the control
 * plane's directory: production flags where they matter (Node and RBAC authorization, the admission
 * plugins a kubeadm cluster adds, service-account signing), sized for the number of node identities
 * ({@link ControlPlaneSizing}), with the builder's feature gates and extra flags. Starts nothing.
 */
final class ComponentCommands {
  private final Path bin;
  private final Path dir;
  private final Pki pki;
  private final ControlPlane.Builder options;
  private final ControlPlaneSizing sizing;

  ComponentCommands(Path bin, Path dir, Pki pki, ControlPlane.Builder options) {
    this.bin = bin;
    this.dir = dir;
    this.pki = pki;
    this.options = options;
    // The components' flags for the number of node identities (docs/simulator.md, "Sized for the
    // cluster").
    this.sizing = ControlPlaneSizing.forNodes(options.nodes.size());
  }

  List<String> etcd(int client, int peer, int metrics) {
    return List.of(
        bin.resolve("etcd").toString(),
        "--name=sim",
        "--data-dir=" + dir.resolve("etcd-data"),
        "--listen-client-urls=http://127.0.0.1:" + client,
        "--advertise-client-urls=http://127.0.0.1:" + client,
        "--listen-peer-urls=http://127.0.0.1:" + peer,
        "--initial-advertise-peer-urls=http://127.0.0.1:" + peer,
        "--initial-cluster=sim=http://127.0.0.1:" + peer,
        "--listen-metrics-urls=http://127.0.0.1:" + metrics,
        "--unsafe-no-fsync=true");
  }

  /**
   * @param tokenFile the {@link TokenFile} written for this control plane
   * @param auditPolicy a file holding {@link #auditPolicy()}
   */
  List<String> apiServer(String etcdUrl, int port, Path tokenFile, Path auditPolicy) {
    List<String> args =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-apiserver").toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                "--secure-port=" + port,
                // Node clients share connections, NODES_PER_CONNECTION each; the JDK client fails
                // a request beyond the server's stream limit instead of opening another one.
                "--http2-max-streams-per-connection=" + 20 * ControlPlane.NODES_PER_CONNECTION,
                "--tls-cert-file=" + pki.serverCert,
                "--tls-private-key-file=" + pki.serverKey,
                "--client-ca-file=" + pki.caCert,
                "--requestheader-client-ca-file=" + pki.frontProxyCaCert,
                "--requestheader-allowed-names=front-proxy-client",
                "--requestheader-username-headers=X-Remote-User",
                "--requestheader-group-headers=X-Remote-Group",
                "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                "--token-auth-file=" + tokenFile,
                "--authorization-mode=Node,RBAC",
                // Added to the defaults a production cluster runs (NamespaceLifecycle,
                // ServiceAccount, PodSecurity, ResourceQuota, the admission webhooks and
                // policies ...): NodeRestriction as every kubeadm cluster, and
                // ExtendedResourceToleration so pods asking for nvidia.com/gpu tolerate the GPU
                // taint, as docs/configuration.md tells users to enable.
                "--enable-admission-plugins=NodeRestriction,ExtendedResourceToleration",
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-account-key-file=" + pki.serviceAccountPub,
                "--service-account-signing-key-file=" + pki.serviceAccountKey,
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true",
                "--endpoint-reconciler-type=none",
                "--audit-log-path=" + dir.resolve("audit.log"),
                "--audit-policy-file=" + auditPolicy,
                "--audit-log-format=json"));
    args.addAll(sizing.apiServerArgs());
    args.addAll(options.extraApiServerArgs);
    options.featureGatesArg().ifPresent(args::add);
    return args;
  }

  /**
   * Write requests are recorded in the audit log so tests can count what a component wrote (for
   * example: an idle operator writes nothing); above 100 nodes without the nodes' lease renewals
   * and pod status ({@link ControlPlaneSizing#auditsNodeStatus()}).
   */
  String auditPolicy() {
    return "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
        + (sizing.auditsNodeStatus()
            ? ""
            : "- level: None\n  userGroups: [\"system:nodes\"]\n  verbs: [update, patch]\n"
                + "  resources:\n  - {group: coordination.k8s.io, resources: [leases]}\n"
                + "  - {group: \"\", resources: [pods/status]}\n")
        + "- level: Metadata\n  verbs: [create, update, patch, delete, deletecollection]\n"
        + "- level: None\n";
  }

  List<String> controllerManager(Path kubeconfig, int port) {
    List<String> args = component("kube-controller-manager", kubeconfig, port, "kcm-certs");
    args.addAll(
        List.of(
            "--use-service-account-credentials=true",
            "--service-account-private-key-file=" + pki.serviceAccountKey,
            "--root-ca-file=" + pki.caCert,
            "--cluster-signing-cert-file=" + pki.caCert,
            "--cluster-signing-key-file=" + pki.caKey,
            "--node-monitor-grace-period=" + options.nodeMonitorGracePeriod,
            "--cloud-provider="));
    if (options.controllers != null) {
      args.add("--controllers=" + options.controllers);
    }
    args.addAll(sizing.controllerManagerArgs());
    options.featureGatesArg().ifPresent(args::add);
    return args;
  }

  List<String> scheduler(Path kubeconfig, int port) {
    List<String> args = component("kube-scheduler", kubeconfig, port, "scheduler-certs");
    args.addAll(sizing.schedulerArgs());
    options.featureGatesArg().ifPresent(args::add);
    return args;
  }

  /**
   * What the controller-manager and the scheduler both take: one kubeconfig for everything, a
   * secure port on 127.0.0.1 with self-signed certificates in {@code certDir}, no leader election.
   */
  private List<String> component(String binary, Path kubeconfig, int port, String certDir) {
    return new ArrayList<>(
        List.of(
            bin.resolve(binary).toString(),
            "--kubeconfig=" + kubeconfig,
            "--authentication-kubeconfig=" + kubeconfig,
            "--authorization-kubeconfig=" + kubeconfig,
            "--bind-address=127.0.0.1",
            "--secure-port=" + port,
            "--cert-dir=" + dir.resolve(certDir),
            "--leader-elect=false"));
  }
}
