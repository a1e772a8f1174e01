package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuoperator.config.zap.TimeEncoding;
import io.gpuoperator.config.zap.ZapOptions;
import io.gpuoperator.config.zap.ZapSettings;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import picocli.CommandLine;

class ZapLoggingTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  /**
   * A private Logback context set up as logback.xml sets the process's: text, libraries quieter.
   */
  private LoggerContext context() {
    LoggerContext ctx = new LoggerContext();
    ctx.setMDCAdapter(new LogbackMDCAdapter());
    PatternLayoutEncoder text = new PatternLayoutEncoder();
    text.setContext(ctx);
    text.setPattern("%-5level %msg%n");
    text.start();
    OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
    appender.setContext(ctx);
    appender.setEncoder(text);
    appender.setOutputStream(out);
    appender.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
    ctx.getLogger("io.fabric8").setLevel(Level.WARN);
    ctx.getLogger("io.javaoperatorsdk").setLevel(Level.INFO);
    return ctx;
  }

  private static ZapSettings settings(String... flags) {
    ZapOptions zap = new OperatorCommand.Zap();
    new CommandLine(zap).parseArgs(flags);
    return zap.settings();
  }

  private static void reconcileLine(LoggerContext ctx) {
    // What JOSDK puts in the MDC around a reconcile of a cluster-scoped resource.
    var mdc = ctx.getMDCAdapter();
    try {
      mdc.put("resource.apiVersion", "nvidia.com/v1");
      mdc.put("resource.kind", "ClusterPolicy");
      mdc.put("resource.namespace", "no namespace");
      mdc.put("resource.name", "cluster-policy");
      mdc.put("resource.resourceVersion", "42");
      ctx.getLogger("io.gpuoperator.test").info("applied {}, deleted {}", 3, 0);
    } finally {
      mdc.clear();
    }
  }

  private List<JsonNode> lines() throws Exception {
    List<JsonNode> nodes = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      nodes.add(JSON.readTree(line));
    }
    return nodes;
  }

  private static List<String> keys(JsonNode node) {
    List<String> keys = new ArrayList<>();
    node.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  @Test
  void defaultsAreJsonLinesWithZapsKeysAndTheReconciledResource() throws Exception {
    LoggerContext ctx = context();
    ZapLogging.apply(ctx, settings(), ZoneOffset.UTC);
    reconcileLine(ctx);
    ctx.getLogger("io.gpuoperator.test").debug("hidden at info");
    ctx.getLogger("io.gpuoperator.test").atWarn().addKeyValue("node", "gpu-1").log("slow");
    ctx.getLogger("io.gpuoperator.test").error("failed", new IllegalStateException("boom"));
    List<JsonNode> lines = lines();
    assertThat(lines).hasSize(3);
    JsonNode info = lines.get(0);
    assertThat(keys(info))
        .containsExactly(
            "level",
            "ts",
            "logger",
            "msg",
            "controllerGroup",
            "controllerKind",
            "namespace",
            "name");
    assertThat(info.get("level").asText()).isEqualTo("info");
    // controller-runtime's default time encoding when no flag is given: RFC 3339.
    assertThat(info.get("ts").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(info.get("logger").asText()).isEqualTo("io.gpuoperator.test");
    assertThat(info.get("msg").asText()).isEqualTo("applied 3, deleted 0");
    assertThat(info.get("controllerGroup").asText()).isEqualTo("nvidia.com");
    assertThat(info.get("controllerKind").asText()).isEqualTo("ClusterPolicy");
    assertThat(info.get("namespace").asText()).isEmpty();
    assertThat(info.get("name").asText()).isEqualTo("cluster-policy");
    assertThat(keys(lines.get(1))).containsExactly("level", "ts", "logger", "msg", "node");
    assertThat(lines.get(1).get("level").asText()).isEqualTo("warn");
    // The operator presets stack traces to panic, as NVIDIA's: the error's message only.
    assertThat(keys(lines.get(2))).containsExactly("level", "ts", "logger", "msg", "error");
    assertThat(lines.get(2).get("error").asText()).isEqualTo("boom");
  }

  @Test
  void stackTracesFromTheirLevelAndEpochTimes() throws Exception {
    LoggerContext ctx = context();
    ZapLogging.apply(
        ctx, settings("--zap-stacktrace-level=error", "--zap-time-encoding=epoch"), ZoneOffset.UTC);
    ctx.getLogger("x").error("failed", new IllegalStateException());
    ctx.getLogger("x").error("no throwable");
    ctx.getLogger("x").warn("below the stack trace level");
    List<JsonNode> lines = lines();
    assertThat(lines.get(0).get("ts").isNumber()).isTrue();
    assertThat(lines.get(0).get("ts").asDouble())
        .isCloseTo(System.currentTimeMillis() / 1000.0, org.assertj.core.data.Offset.offset(60.0));
    assertThat(lines.get(0).get("error").asText()).isEqualTo("IllegalStateException");
    assertThat(lines.get(0).get("stacktrace").asText())
        .startsWith("java.lang.IllegalStateException")
        .contains("ZapLoggingTest.stackTracesFromTheirLevelAndEpochTimes");
    assertThat(lines.get(1).get("stacktrace").asText())
        .startsWith(ZapLoggingTest.class.getName() + ".stackTracesFromTheirLevelAndEpochTimes\n\t");
    assertThat(lines.get(2).has("stacktrace")).isFalse();
  }

  @Test
  void develIsConsoleTextAtDebug() {
    LoggerContext ctx = context();
    ZapLogging.apply(ctx, settings("--zap-devel", "--zap-time-encoding=iso8601"), ZoneOffset.UTC);
    reconcileLine(ctx);
    ctx.getLogger("io.gpuoperator.test").debug("shown at debug");
    ctx.getLogger("io.javaoperatorsdk.operator.Operator").debug("the SDK follows");
    String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
    assertThat(lines).hasSize(3);
    assertThat(lines[0])
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\tINFO\tio\\.gpuoperator\\.test\t"
                + "applied 3, deleted 0\t\\{\"controllerGroup\": \"nvidia.com\", \"controllerKind\":"
                + " \"ClusterPolicy\", \"namespace\": \"\", \"name\": \"cluster-policy\"\\}");
    assertThat(lines[1]).contains("\tDEBUG\tio.gpuoperator.test\tshown at debug");
    assertThat(lines[2]).contains("\tDEBUG\tio.javaoperatorsdk.operator.Operator\t");
  }

  @Test
  void levelsMapOntoLogbackAndQuietLibrariesStayQuiet() throws Exception {
    LoggerContext ctx = context();
    ZapLogging.apply(ctx, settings("--zap-log-level=error"), ZoneOffset.UTC);
    ctx.getLogger("io.fabric8.Watch").warn("hidden: libraries follow a less verbose level");
    ctx.getLogger("io.javaoperatorsdk.x").info("hidden");
    ctx.getLogger("x").error("shown");
    assertThat(lines()).extracting(n -> n.get("msg").asText()).containsExactly("shown");

    out.reset();
    ZapLogging.apply(ctx, settings("--zap-log-level=2"), ZoneOffset.UTC);
    ctx.getLogger("x").trace("verbosity 2");
    ctx.getLogger("io.fabric8.Watch").debug("a library set quieter by logback.xml stays so");
    assertThat(lines()).extracting(n -> n.get("level").asText()).containsExactly("Level(-2)");

    assertThat(ZapLogging.logbackLevel(ZapSettings.PANIC)).isEqualTo(Level.OFF);
    assertThat(ZapLogging.logbackLevel(-7)).isEqualTo(Level.TRACE);
  }

  @Test
  void theEntryPointFindsTheInvokedCommandsFlags() {
    @CommandLine.Command(
        name = "top",
        subcommands = {OperatorCommand.class})
    class Top implements Runnable {
      @Override
      public void run() {}
    }
    CommandLine cl = new CommandLine(new Top());
    CommandLine.ParseResult parsed =
        cl.parseArgs("operator", "--zap-encoder=console", "--zap-time-encoding=millis");
    ZapSettings s = ZapLogging.options(parsed).settings();
    assertThat(s.encoder()).isEqualTo(ZapSettings.Encoder.CONSOLE);
    assertThat(s.timeEncoding()).isEqualTo(TimeEncoding.MILLIS);
    assertThat(ZapLogging.options(new CommandLine(new Top()).parseArgs())).isNull();
  }
}
