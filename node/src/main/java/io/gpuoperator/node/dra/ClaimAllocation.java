package io.gpuoperator.node.dra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;

/**
 * What the scheduler allocated to a ResourceClaim, as the plugin needs it: the claim's identity,
 * the results for one driver and pool, and the opaque configuration entries for that driver in the
 * order the API lists them (the DeviceClass's first, then the claim's; a later entry wins). Read
 * from the claim's JSON, whose allocation has the same shape in {@code v1}, {@code v1beta2} and
 * {@code v1beta1}.
 *
 * @param namespace the claim's namespace
 * @param name the claim's name
 * @param uid the claim's UID
 * @param results the devices allocated from this driver's pool
 * @param configs this driver's opaque configuration entries
 */
public record ClaimAllocation(
    String namespace, String name, String uid, List<Result> results, List<Config> configs) {

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  public ClaimAllocation {
    results = List.copyOf(results);
    configs = List.copyOf(configs);
  }

  /** {@code namespace/name}, for messages. */
  public String ref() {
    return namespace + "/" + name;
  }

  /**
   * One allocated device.
   *
   * @param request the request it satisfies ({@code <request>} or {@code <request>/<subrequest>})
   * @param device the device name in the pool
   */
  public record Result(String request, String device) {
    /** The request without a subrequest part. */
    public String parentRequest() {
      int slash = request.indexOf('/');
      return slash < 0 ? request : request.substring(0, slash);
    }
  }

  /**
   * One opaque configuration entry.
   *
   * @param where where the user wrote it, e.g. {@code spec.devices.config[1]} or {@code DeviceClass
   *     config[0]}
   * @param requests the requests it applies to; empty for all
   * @param parameters the opaque parameters
   */
  public record Config(String where, List<String> requests, JsonNode parameters) {
    /** Whether the entry applies to a result. */
    public boolean appliesTo(Result r) {
      return requests.isEmpty()
          || requests.contains(r.request())
          || requests.contains(r.parentRequest());
    }
  }

  /**
   * Reads a claim's allocation for the driver's devices in the pool.
   *
   * @throws IllegalArgumentException when the claim is not allocated
   */
  public static ClaimAllocation of(GenericKubernetesResource claim, String driver, String pool) {
    JsonNode root = JSON.valueToTree(claim);
    JsonNode meta = root.path("metadata");
    String namespace = meta.path("namespace").asText();
    String name = meta.path("name").asText();
    JsonNode devices = root.path("status").path("allocation").path("devices");
    if (devices.isMissingNode() || devices.isNull()) {
      throw new IllegalArgumentException(
          "ResourceClaim " + namespace + "/" + name + " is not allocated");
    }
    List<Result> results = new ArrayList<>();
    for (JsonNode r : devices.path("results")) {
      if (driver.equals(r.path("driver").asText()) && pool.equals(r.path("pool").asText())) {
        results.add(new Result(r.path("request").asText(), r.path("device").asText()));
      }
    }
    List<Config> configs = new ArrayList<>();
    int fromClass = 0;
    int fromClaim = 0;
    for (JsonNode c : devices.path("config")) {
      boolean isClass = "FromClass".equals(c.path("source").asText());
      String where =
          isClass
              ? "DeviceClass config[" + fromClass++ + "]"
              : "spec.devices.config[" + fromClaim++ + "]";
      JsonNode opaque = c.path("opaque");
      if (!driver.equals(opaque.path("driver").asText())) {
        continue;
      }
      List<String> requests = new ArrayList<>();
      for (JsonNode req : c.path("requests")) {
        requests.add(req.asText());
      }
      configs.add(new Config(where, requests, opaque.path("parameters")));
    }
    return new ClaimAllocation(namespace, name, meta.path("uid").asText(), results, configs);
  }
}
