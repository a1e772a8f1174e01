package io.gpuoperator.operator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.gpuoperator.api.v1alpha1.NVIDIADriver;
import io.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import io.gpuoperator.operator.Policies;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverOwnersTest {
  static NVIDIADriver driver(String name, boolean isDefault, Map<String, String> selector) {
    NVIDIADriver d = new NVIDIADriver();
    d.getMetadata().setName(name);
    d.setSpec(new NVIDIADriverSpec());
    d.getSpec().defaultDriver = isDefault ? true : null;
    d.getSpec().nodeSelector = selector;
    return d;
  }

  static final List<Node> NODES =
      List.of(
          Policies.node("a100-0", Map.of("pool", "a100")),
          Policies.node("h100-0", Map.of("pool", "h100", "team", "research")),
          Policies.node("l4-0", Map.of("pool", "l4")));

  @Test
  void theDriverBeingReconciledCountsEvenBeforeTheCacheHasIt() {
    NVIDIADriver hopper = driver("hopper", false, Map.of("pool", "h100"));
    hopper.getMetadata().setUid("u-hopper");
    NVIDIADriver fresh = driver("default", true, null);
    fresh.getMetadata().setUid("u-default");
    // The cache has not heard of "default" yet: it still gets the nodes no selector takes.
    assertThat(
            DriverOwners.assign(DriverOwners.withCurrent(List.of(hopper), fresh), NODES).owners())
        .containsEntry("l4-0", "default")
        .containsEntry("a100-0", "default")
        .containsEntry("h100-0", "hopper");
    // A stale cached copy gives way to the one being reconciled.
    NVIDIADriver stale = driver("default", false, Map.of("pool", "none"));
    stale.getMetadata().setUid("u-default");
    assertThat(DriverOwners.withCurrent(List.of(stale, hopper), fresh))
        .containsExactly(hopper, fresh);
  }

  @Test
  void selectorsFirstThenTheDefault() {
    DriverOwners o =
        DriverOwners.assign(
            List.of(
                driver("default", true, null),
                driver("hopper", false, Map.of("pool", "h100")),
                driver("ampere", false, Map.of("pool", "a100"))),
            NODES);
    assertThat(o.owners())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("a100-0", "ampere", "h100-0", "hopper", "l4-0", "default"));
    assertThat(o.conflicts()).isEmpty();
    assertThat(o.errors()).isEmpty();
  }

  @Test
  void aNodeMatchedByTwoDriversIsAConflictThatAssignsNothing() {
    DriverOwners o =
        DriverOwners.assign(
            List.of(
                driver("default", true, null),
                driver("hopper", false, Map.of("pool", "h100")),
                driver("research", false, Map.of("team", "research"))),
            NODES);
    assertThat(o.owners()).doesNotContainKey("h100-0").containsEntry("l4-0", "default");
    assertThat(o.conflicts()).containsEntry("h100-0", List.of("hopper", "research"));
    assertThat(o.conflictOf("hopper")).contains("h100-0 (hopper, research)");
    assertThat(o.conflictOf("default")).isNull();
  }

  @Test
  void withoutADefaultUnmatchedNodesGetNoDriverAndTwoDefaultsAreBothErrors() {
    DriverOwners none =
        DriverOwners.assign(List.of(driver("hopper", false, Map.of("pool", "h100"))), NODES);
    assertThat(none.owners()).containsOnlyKeys("h100-0");
    DriverOwners two =
        DriverOwners.assign(List.of(driver("x", true, null), driver("y", true, null)), NODES);
    assertThat(two.owners()).isEmpty();
    assertThat(two.errors()).containsOnlyKeys("x", "y");
    assertThat(two.errors().get("x")).contains("more than one default NVIDIADriver (x, y)");
  }

  @Test
  void driversBeingDeletedDoNotCount() {
    NVIDIADriver going = driver("hopper", false, Map.of("pool", "h100"));
    going.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    DriverOwners o = DriverOwners.assign(List.of(driver("default", true, null), going), NODES);
    assertThat(o.owners()).containsEntry("h100-0", "default");
  }
}
