package io.gpuoperator.node.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.gpuoperator.node.TestDependencies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CDI JSON schema (draft-07, with its {@code defs.json}) from Debian's
 * container-device-interface source package, fetched by scripts/test-deps.sh.
 */
public final class CdiSchema {
  private final Schema schema;

  private CdiSchema(Schema schema) {
    this.schema = schema;
  }

  /** Skips the test (fails it under CI=true) when the schema was not fetched. */
  public static CdiSchema load() {
    String p = System.getProperty("gpu-operator.cdi.schema", "");
    Path file = p.isEmpty() ? null : Path.of(p);
    TestDependencies.require(
        file != null && Files.isRegularFile(file),
        "CDI schema not found at " + file + "; run scripts/test-deps.sh");
    // Both files under one base IRI, so schema.json's relative $ref to defs.json resolves; nothing
    // is fetched.
    Map<String, String> files = new HashMap<>();
    try {
      for (String name : List.of("schema.json", "defs.json")) {
        files.put(BASE + name, Files.readString(file.resolveSibling(name)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    SchemaRegistry registry =
        SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7, b -> b.schemas(files));
    return new CdiSchema(registry.getSchema(SchemaLocation.of(BASE + "schema.json")));
  }

  private static final String BASE = "https://cdi.schema.invalid/";

  /** The schema violations of {@code spec}; empty when it is valid. */
  public List<String> errors(JsonNode spec) {
    return schema.validate(spec).stream().map(Error::toString).toList();
  }
}
