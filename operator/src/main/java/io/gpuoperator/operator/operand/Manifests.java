package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Loads an operand's numbered manifests from {@code manifests/<operand>/} on the classpath as typed
 * fabric8 objects (kinds fabric8 does not know, such as ServiceMonitor, become {@code
 * GenericKubernetesResource}). Files are applied in file-name order, as in the original. An overlay
 * folder ({@code manifests/<operand>/<overlay>/}) changes the set file by file: a file there
 * replaces the base file of the same name or adds one, and a file without an object (comments only)
 * removes it.
 */
public final class Manifests {
  /** Classpath folder holding one sub-folder per operand. */
  public static final String ROOT = "manifests";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** Parsed once per operand; callers get deep copies (YAML parsing dominated rendering). */
  private static final Map<String, List<HasMetadata>> PROTOTYPES = new ConcurrentHashMap<>();

  private Manifests() {}

  /** Fresh, mutable copies of the operand's objects, in apply order. */
  public static List<HasMetadata> load(String folder) {
    return load(folder, null);
  }

  /** The same with an overlay folder applied (null: none). */
  public static List<HasMetadata> load(String folder, String overlay) {
    String key = overlay == null ? folder : folder + "/" + overlay;
    List<HasMetadata> out = new ArrayList<>();
    for (HasMetadata prototype : PROTOTYPES.computeIfAbsent(key, k -> parse(folder, overlay))) {
      out.add(SERIALIZATION.clone(prototype));
    }
    return out;
  }

  private static List<HasMetadata> parse(String folder, String overlay) {
    java.util.TreeMap<String, String> texts = new java.util.TreeMap<>();
    for (String name : files(folder)) {
      texts.put(name, read(folder + "/" + name));
    }
    if (overlay != null) {
      String dir = folder + "/" + overlay;
      for (String name : files(dir)) {
        texts.put(name, read(dir + "/" + name));
      }
    }
    List<HasMetadata> out = new ArrayList<>();
    for (var e : texts.entrySet()) {
      if (e.getValue().lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
        continue; // an overlay's way of removing a base file
      }
      Object parsed = SERIALIZATION.unmarshal(e.getValue());
      if (parsed instanceof HasMetadata object) {
        out.add(object);
      } else if (parsed instanceof List<?> list) {
        list.stream().map(HasMetadata.class::cast).forEach(out::add);
      } else {
        throw new IllegalStateException(
            ROOT + "/" + folder + "/" + e.getKey() + ": not a Kubernetes object: " + parsed);
      }
    }
    return List.copyOf(out);
  }

  /** The manifest file names of an operand folder, sorted. */
  public static List<String> files(String folder) {
    String prefix = ROOT + "/" + folder + "/";
    URL location = Manifests.class.getProtectionDomain().getCodeSource().getLocation();
    List<String> names = new ArrayList<>();
    try {
      Path path = Path.of(location.toURI());
      if (Files.isDirectory(path)) {
        Path dir = path.resolve(prefix);
        if (Files.isDirectory(dir)) {
          try (Stream<Path> files = Files.list(dir)) {
            files
                .map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".yaml"))
                .forEach(names::add);
          }
        }
      } else {
        try (JarFile jar = new JarFile(path.toFile())) {
          for (JarEntry e : java.util.Collections.list(jar.entries())) {
            String n = e.getName();
            if (n.startsWith(prefix)
                && n.endsWith(".yaml")
                && n.indexOf('/', prefix.length()) < 0) {
              names.add(n.substring(prefix.length()));
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    if (names.isEmpty()) {
      throw new IllegalStateException("no manifests under " + prefix + " in " + location);
    }
    names.sort(null);
    return names;
  }

  private static String read(String file) {
    String resource = "/" + ROOT + "/" + file;
    try (InputStream in = Manifests.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
