package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The API server's static token file ({@code --token-auth-file}): a random bearer token for the
 * admin (system:masters), the controller-manager, the scheduler and each declared node
 * (system:nodes), and the kubeconfigs that carry them. Only identities declared here can log in.
 */
final class TokenFile {
  private final Map<String, String> tokens = new LinkedHashMap<>();
  private final Path path;

  private TokenFile(Path path) {
    this.path = path;
  }

  /** Draws the tokens and writes them, owner-only, to {@code file}. */
  static TokenFile write(Path file, List<String> nodes) throws IOException {
    TokenFile t = new TokenFile(file);
    StringBuilder csv = new StringBuilder();
    t.addToken(csv, "admin", "system:masters");
    t.addToken(csv, "system:kube-controller-manager", null);
    t.addToken(csv, "system:kube-scheduler", null);
    for (String node : nodes) {
      t.addToken(csv, "system:node:" + node, "system:nodes");
    }
    RunDirs.writeSecret(file, csv.toString());
    return t;
  }

  private void addToken(StringBuilder csv, String user, String group) {
    byte[] raw = new byte[24];
    new SecureRandom().nextBytes(raw);
    String token = HexFormat.of().formatHex(raw);
    tokens.put(user, token);
    csv.append(token).append(',').append(user).append(',').append(user);
    if (group != null) {
      csv.append(",\"").append(group).append('"');
    }
    csv.append('\n');
  }

  /** The file, for the API server's {@code --token-auth-file}. */
  Path path() {
    return path;
  }

  /** The bearer token of a declared identity. */
  String token(String user) {
    String token = tokens.get(user);
    if (token == null) {
      throw new IllegalArgumentException(
          "no credential for " + user + "; declare node identities in ControlPlane.builder()");
    }
    return token;
  }

  /** Kubeconfig YAML for a declared identity, trusting the cluster CA. */
  String kubeconfig(String user, String server, Path caCert) {
    String token = token(user);
    try {
      String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(caCert));
      return "apiVersion: v1\nkind: Config\n"
          + "clusters:\n- name: sim\n  cluster:\n    server: "
          + server
          + "\n"
          + "    certificate-authority-data: "
          + ca
          + "\n"
          + "users:\n- name: "
          + user
          + "\n  user:\n    token: "
          + token
          + "\n"
          + "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: "
          + user
          + "\n"
          + "current-context: sim\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
