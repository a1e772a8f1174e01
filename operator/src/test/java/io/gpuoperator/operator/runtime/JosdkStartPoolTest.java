package io.gpuoperator.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

class JosdkStartPoolTest {
  @Test
  void replacesJosdksCachedPoolWithABoundedOne() {
    // No request is made: the operator is built and not started.
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder()
                    .withMasterUrl("https://127.0.0.1:1")
                    .build())
            .build()) {
      Operator operator = new Operator(o -> o.withKubernetesClient(client));
      var manager = operator.getConfigurationService().getExecutorServiceManager();
      var before = manager.cachingExecutorService();

      JosdkStartPool.install(operator);

      var pool = manager.cachingExecutorService();
      assertThat(pool).isNotSameAs(before).isInstanceOf(ThreadPoolExecutor.class);
      assertThat(((ThreadPoolExecutor) pool).getMaximumPoolSize())
          .isEqualTo(JosdkStartPool.THREADS);
      assertThat(before.isShutdown()).as("JOSDK's own pool is let go").isTrue();
      pool.shutdown();
    }
  }
}
