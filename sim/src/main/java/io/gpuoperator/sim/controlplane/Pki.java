package io.gpuoperator.sim.controlplane;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates and keys for a throwaway control plane, made with the openssl command (the JDK has
 * no public API to sign certificates).
 */
final class Pki {
  final Path dir;
  final Path caCert;
  final Path caKey;
  final Path serverCert;
  final Path serverKey;
  final Path frontProxyCaCert;
  final Path serviceAccountKey;
  final Path serviceAccountPub;

  private Pki(Path dir) {
    this.dir = dir;
    this.caCert = dir.resolve("ca.crt");
    this.caKey = dir.resolve("ca.key");
    this.serverCert = dir.resolve("apiserver.crt");
    this.serverKey = dir.resolve("apiserver.key");
    this.frontProxyCaCert = dir.resolve("front-proxy-ca.crt");
    this.serviceAccountKey = dir.resolve("sa.key");
    this.serviceAccountPub = dir.resolve("sa.pub");
  }

  static Pki create(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Pki pki = new Pki(dir);
    Path frontProxyKey = dir.resolve("front-proxy-ca.key");
    Path csr = dir.resolve("apiserver.csr");
    Path ext = dir.resolve("apiserver.ext");
    Files.writeString(
        ext,
        "subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,"
            + "DNS:kubernetes.default,DNS:kubernetes.default.svc,"
            + "DNS:kubernetes.default.svc.cluster.local\n"
            + "keyUsage=critical,digitalSignature,keyEncipherment\n"
            + "extendedKeyUsage=serverAuth\n");
    selfSignedCa(dir, "/CN=gpu-operator-sim-ca", pki.caKey, pki.caCert);
    selfSignedCa(dir, "/CN=front-proxy-ca", frontProxyKey, pki.frontProxyCaCert);
    openssl(
        dir,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=kube-apiserver",
        "-keyout",
        pki.serverKey.toString(),
        "-out",
        csr.toString());
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        pki.caCert.toString(),
        "-CAkey",
        pki.caKey.toString(),
        "-CAcreateserial",
        "-days",
        "3650",
        "-extfile",
        ext.toString(),
        "-out",
        pki.serverCert.toString());
    openssl(dir, "genrsa", "-out", pki.serviceAccountKey.toString(), "2048");
    openssl(
        dir,
        "rsa",
        "-in",
        pki.serviceAccountKey.toString(),
        "-pubout",
        "-out",
        pki.serviceAccountPub.toString());
    return pki;
  }

  /** A CA: a new RSA key and its self-signed certificate, valid for ten years. */
  private static void selfSignedCa(Path dir, String subject, Path key, Path cert)
      throws IOException, InterruptedException {
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "3650",
        "-subj",
        subject,
        "-keyout",
        key.toString(),
        "-out",
        cert.toString());
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("openssl " + args[0] + " did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          "openssl "
              + String.join(" ", args)
              + " failed (exit "
              + p.exitValue()
              + "): "
              + Files.readString(log));
    }
  }
}
