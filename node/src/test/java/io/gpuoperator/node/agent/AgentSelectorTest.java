package io.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuoperator.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentSelectorTest {
  static final String DP = "nvidia.com/gpu.deploy.device-plugin";
  static final String DRA = "nvidia.com/gpu.deploy.dra-driver";

  @Test
  void equalsAndNotEqualsAsKubernetesLabelSelectorsHaveThem() {
    AgentSelector s = AgentSelector.parse(DRA + "=true," + DP + "!=true");
    assertThat(s.matches(Map.of(DRA, "true"))).isTrue(); // absent matches !=
    assertThat(s.matches(Map.of(DRA, "true", DP, "false"))).isTrue();
    assertThat(s.matches(Map.of(DRA, "true", DP, "true"))).isFalse();
    assertThat(s.matches(Map.of(DRA, "paused-for-mig-change"))).isFalse();
    assertThat(s.matches(Map.of())).isFalse(); // absent matches no =
    assertThat(s).hasToString(DRA + "=true," + DP + "!=true");
    assertThat(AgentSelector.parse(DP + "==true").matches(Map.of(DP, "true"))).isTrue();
    assertThat(AgentSelector.parse(" ").matches(Map.of())).isTrue();
  }

  @Test
  void aPartThatIsNotARequirementIsRefusedNamingIt() {
    assertThatThrownBy(() -> AgentSelector.parse(DP + "=true,oops"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'oops' is not key=value or key!=value");
    assertThatThrownBy(() -> AgentSelector.parse("=true"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not key=value");
  }
}
