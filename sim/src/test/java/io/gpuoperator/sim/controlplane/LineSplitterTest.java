package io.gpuoperator.sim.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {
  private static List<String> split(String text, int chunk, boolean direct) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>();
    StreamingInformer.LineSplitter splitter = new StreamingInformer.LineSplitter();
    for (int i = 0; i < bytes.length; i += chunk) {
      int n = Math.min(chunk, bytes.length - i);
      ByteBuffer b = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n + 3).position(3);
      b.put(bytes, i, n).flip();
      if (!direct) {
        b.position(3).limit(3 + n);
        b = b.slice();
      }
      splitter.feed(b, (line, len) -> lines.add(new String(line, 0, len, StandardCharsets.UTF_8)));
    }
    return lines;
  }

  @Test
  void cutsAtNewlinesWhereverTheChunksEnd() {
    String big = "x".repeat(20_000);
    String text = "{\"a\":1}\n{\"b\":\"é\"}\n\n" + big + "\n{\"c\":3}\npartial";
    for (int chunk : new int[] {1, 2, 7, 100, 8192, 100_000}) {
      for (boolean direct : new boolean[] {false, true}) {
        assertThat(split(text, chunk, direct))
            .as("chunks of %d, direct %s", chunk, direct)
            .containsExactly("{\"a\":1}", "{\"b\":\"é\"}", big, "{\"c\":3}");
      }
    }
  }
}
