package io.gpuoperator.node.mig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.node.config.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

class MigConfigValidatorTest {
  final MigCatalog catalog = MigCatalog.builtIn();

  List<MigConfigValidator.Verdict> validate(String yaml) {
    return MigConfigValidator.validate(MigConfigFile.parse(yaml, "test.yaml"), catalog);
  }

  @Test
  void invalidExamplesNameConfigGpuAndReason() {
    var verdicts =
        validate(
            """
            version: v1
            mig-configs:
              over-budget:
                - {device-filter: "0x233010DE", devices: all, mig-enabled: true, mig-devices: {"3g.40gb": 2, "2g.20gb": 1}}
              unknown-profile:
                - {device-filter: ["0x233010DE"], devices: all, mig-enabled: true, mig-devices: {"1g.5gb": 7}}
              no-placement:
                - {device-filter: ["0x233010DE"], devices: all, mig-enabled: true, mig-devices: {"1g.20gb": 4, "1g.10gb": 1}}
              wrong-device-filter:
                - {device-filter: ["0x20B010DE"], devices: all, mig-enabled: true, mig-devices: {"1g.10gb": 7}}
              fits-nothing:
                - {devices: all, mig-enabled: true, mig-devices: {"7g.80gb": 2}}
            """);
    assertThat(verdicts)
        .extracting(MigConfigValidator.Verdict::status)
        .containsOnly(MigConfigValidator.Status.INVALID);
    assertThat(verdicts.get(0).summary())
        .isEqualTo(
            "over-budget: invalid: (device-filter 0x233010DE): 3g.40gb ×2 + 2g.20gb ×1 need 8 of 7 compute slices on H100-SXM5-80GB");
    assertThat(verdicts.get(1).summary()).contains("H100-SXM5-80GB has no MIG profile 1g.5gb");
    assertThat(verdicts.get(2).summary())
        .contains("no placement holds them together on H100-SXM5-80GB");
    assertThat(verdicts.get(3).summary())
        .contains(
            "(device-filter 0x20B010DE): 1g.10gb ×7 exceeds its maximum of 4 per GPU on A100-SXM4-40GB");
    assertThat(verdicts.get(4).summary()).contains("fits none of the 14 GPU models");
  }

  @Test
  void unknownGpusAreSkippedAndUnfilteredEntriesListWhatTheyFit() {
    var verdicts =
        validate(
            """
            version: v1
            mig-configs:
              other-gpu:
                - {device-filter: "0x99990DE0", devices: all, mig-enabled: true, mig-devices: {"1g.10gb": 7}}
              any-gpu:
                - {devices: all, mig-enabled: true, mig-devices: {"1g.10gb": 7}}
              partly-known:
                - {device-filter: ["0x99990DE0", "0x233010DE"], devices: [0, 1], mig-enabled: true, mig-devices: {"1g.10gb": 7}}
            """);
    assertThat(verdicts.get(0).status()).isEqualTo(MigConfigValidator.Status.SKIPPED);
    assertThat(verdicts.get(1).summary())
        .isEqualTo("any-gpu: valid: fits A100-SXM4-80GB, H100-SXM5-80GB");
    assertThat(verdicts.get(2).summary())
        .isEqualTo("partly-known: valid: fits H100-SXM5-80GB (skipped 0x99990DE0: no MIG table)");
  }

  @Test
  void malformedFilesNameFileLineAndField() {
    assertThatThrownBy(
            () ->
                MigConfigFile.parse(
                    "version: v2\nmig-configs: {a: [{devices: all, mig-enabled: false}]}\n",
                    "f.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("f.yaml:")
        .hasMessageContaining("version: required and must be v1, got v2");
    assertThatThrownBy(
            () ->
                MigConfigFile.parse(
                    "version: v1\nmig-configs:\n  a:\n    - devices: some\n      mig-enabled: true\n",
                    "f.yaml"))
        .hasMessageContaining("f.yaml:4:")
        .hasMessageContaining("expected all or a list of GPU indices");
    assertThatThrownBy(
            () ->
                MigConfigFile.parse(
                    "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n      device-filter: 0x2330\n",
                    "f.yaml"))
        .hasMessageContaining("device-filter: expected a PCI id");
    assertThatThrownBy(
            () ->
                MigConfigFile.parse(
                    "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n      mig-devices: {1g.10gb: 1}\n",
                    "f.yaml"))
        .hasMessageContaining("must be empty when mig-enabled is false");
    assertThatThrownBy(
            () ->
                MigConfigFile.parse(
                    "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n      mig-device: {}\n",
                    "f.yaml"))
        .hasMessageContaining("unknown field 'mig-device'");
  }
}
