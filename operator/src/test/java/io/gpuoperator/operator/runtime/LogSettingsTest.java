package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.pattern.DynamicConverter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

class LogSettingsTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  /** A private Logback context with one appender to {@link #out}, as logback.xml sets it up. */
  private LoggerContext context() {
    LoggerContext ctx = new LoggerContext();
    ctx.setMDCAdapter(new LogbackMDCAdapter());
    // What logback.xml's <conversionRule> registers.
    Map<String, Supplier<DynamicConverter<?>>> rules = new HashMap<>();
    rules.put("resource", ResourceConverter::new);
    ctx.putObject(CoreConstants.PATTERN_RULE_REGISTRY_FOR_SUPPLIERS, rules);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(ctx);
    encoder.setPattern("%-5level %resource%msg%n");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(ctx);
    appender.setEncoder(encoder);
    appender.setOutputStream(out);
    appender.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    return ctx;
  }

  private static void reconcileLine(LoggerContext ctx, String kind, String ns, String name) {
    // What JOSDK puts in the MDC around a reconcile.
    var mdc = ctx.getMDCAdapter();
    try {
      mdc.put("resource.kind", kind);
      mdc.put("resource.namespace", ns);
      mdc.put("resource.name", name);
      ctx.getLogger("io.gpuoperator.test").info("applied {}, deleted {}", 3, 0);
    } finally {
      mdc.clear();
    }
  }

  @Test
  void textLinesNameTheReconciledResource() {
    LoggerContext ctx = context();
    new LogSettings(Level.INFO, LogSettings.Format.TEXT).apply(ctx);
    reconcileLine(ctx, "ClusterPolicy", "no namespace", "cluster-policy");
    reconcileLine(ctx, "DaemonSet", "gpu-operator", "nvidia-driver-daemonset");
    ctx.getLogger("io.gpuoperator.test").info("started");
    ctx.getLogger("io.gpuoperator.test").debug("hidden at info");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "INFO  ClusterPolicy cluster-policy: applied 3, deleted 0\n"
                + "INFO  DaemonSet gpu-operator/nvidia-driver-daemonset: applied 3, deleted 0\n"
                + "INFO  started\n");
  }

  @Test
  void jsonLinesCarryLevelMessageAndTheResourceFromTheMdc() throws Exception {
    LoggerContext ctx = context();
    new LogSettings(Level.DEBUG, LogSettings.Format.JSON).apply(ctx);
    reconcileLine(ctx, "Node", "no namespace", "gpu-node-1");
    ctx.getLogger("io.gpuoperator.test").debug("shown at debug");
    String[] lines = out.toString(StandardCharsets.UTF_8).strip().split("\n");
    assertThat(lines).hasSize(2);
    JsonNode line = new ObjectMapper().readTree(lines[0]);
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("loggerName").asText()).isEqualTo("io.gpuoperator.test");
    assertThat(line.get("formattedMessage").asText()).isEqualTo("applied 3, deleted 0");
    assertThat(line.get("mdc").get("resource.kind").asText()).isEqualTo("Node");
    assertThat(line.get("mdc").get("resource.name").asText()).isEqualTo("gpu-node-1");
    assertThat(new ObjectMapper().readTree(lines[1]).get("level").asText()).isEqualTo("DEBUG");
  }

  @Test
  void valuesInTheVocabulariesUsersKnowAndErrorsThatNameThem() {
    assertThat(LogSettings.parseLevel("WARNING")).isEqualTo(Level.WARN);
    assertThat(LogSettings.Format.parse("console")).isEqualTo(LogSettings.Format.TEXT);
    assertThatThrownBy(() -> LogSettings.parseLevel("loud"))
        .hasMessage("unknown log level 'loud', expected trace, debug, info, warn or error");
    OperatorCommand flags = new OperatorCommand();
    new picocli.CommandLine(flags).parseArgs("--log-format", "xml");
    assertThatThrownBy(() -> flags.logSettings(Map.of()))
        .hasMessage("--log-format: unknown log format 'xml', expected text or json");
    OperatorCommand env = new OperatorCommand();
    assertThatThrownBy(() -> env.logSettings(Map.of("LOG_LEVEL", "verbose")))
        .hasMessageStartingWith("LOG_LEVEL: unknown log level 'verbose'");
    assertThat(env.logSettings(Map.of("LOG_FORMAT", "json")).format())
        .isEqualTo(LogSettings.Format.JSON);
  }
}
