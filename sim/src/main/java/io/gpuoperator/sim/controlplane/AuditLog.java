package io.gpuoperator.sim.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the API server's audit log ({@link ControlPlane#auditLog()}, one JSON line per write
 * request) to count a client's writes. Here beside the control plane, not in one module's tests,
 * because the operator's ITs and benchmarks and the side-by-side benchmark in cli all count so.
 */
public final class AuditLog {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One write request. */
  public record Write(
      String verb, String resource, String namespace, String name, String sub, int code) {
    @Override
    public String toString() {
      return verb + " " + resource + (sub == null ? "" : "/" + sub) + " " + namespace + "/" + name;
    }
  }

  private final Path file;

  public AuditLog(Path file) {
    this.file = file;
  }

  /** Lines so far (a position to count from). */
  public long mark() {
    return lines().size();
  }

  /**
   * Write requests (failed ones included) since the mark by clients whose user agent starts with
   * the prefix; lease renewals and the start-up access review are excluded (leader election must
   * keep renewing).
   */
  public List<Write> writesSince(long mark, String userAgentPrefix) {
    List<String> lines = lines();
    List<Write> out = new ArrayList<>();
    for (int i = (int) mark; i < lines.size(); i++) {
      try {
        JsonNode e = JSON.readTree(lines.get(i));
        if (!e.path("userAgent").asText().startsWith(userAgentPrefix)) {
          continue;
        }
        JsonNode ref = e.path("objectRef");
        String resource = ref.path("resource").asText();
        if (resource.equals("leases") || resource.equals("selfsubjectrulesreviews")) {
          continue;
        }
        out.add(
            new Write(
                e.path("verb").asText(),
                resource,
                ref.path("namespace").asText(null),
                ref.path("name").asText(null),
                ref.path("subresource").asText(null),
                e.path("responseStatus").path("code").asInt()));
      } catch (IOException ex) {
        // a line being written right now; the next read sees it whole
      }
    }
    return out;
  }

  private List<String> lines() {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
