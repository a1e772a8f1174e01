package io.gpuoperator.node.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class XidPolicyTest {
  @Test
  void defaultIgnoresApplicationXids() {
    XidPolicy p = XidPolicy.defaults();
    for (long xid : new long[] {13, 31, 43, 45, 68, 109, 94}) {
      assertThat(p.critical(xid)).as("XID %d", xid).isFalse();
    }
    assertThat(p.critical(48)).isTrue();
    assertThat(p.critical(79)).isTrue();
    assertThat(p.critical(999)).isTrue();
  }

  @Test
  void envDisablesAndReEnables() {
    XidPolicy p =
        XidPolicy.fromEnv(Map.of("DP_DISABLE_HEALTHCHECKS", "all", "DP_ENABLE_HEALTHCHECKS", "31"));
    assertThat(p.checksDisabled()).isFalse();
    assertThat(p.critical(79)).isFalse();
    assertThat(p.critical(31)).isTrue();
    assertThat(XidPolicy.fromEnv(Map.of("DP_DISABLE_HEALTHCHECKS", "xids")).checksDisabled())
        .isTrue();
    assertThatThrownBy(() -> XidPolicy.fromEnv(Map.of("DP_DISABLE_HEALTHCHECKS", "48,x")))
        .hasMessage(
            "DP_DISABLE_HEALTHCHECKS: \"x\" is not an XID; expected all, xids, or a"
                + " comma-separated list of XID numbers from 1 to 4294967295");
  }
}
