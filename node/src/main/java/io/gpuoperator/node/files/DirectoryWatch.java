package io.gpuoperator.node.files;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells listeners when a file is created in a directory, through one inotify instance and one
 * thread for the whole JVM. Each {@link WatchService} is an inotify instance with a thread of its
 * own, and Linux allows 128 instances per user by default: the simulator's hundreds of device
 * plugins, each watching its node's kubelet directory, had run out of them (and of threads).
 * Listeners must return quickly (hand the work to their own executor).
 */
public final class DirectoryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(DirectoryWatch.class);

  private static WatchService service;
  private static final Map<WatchKey, List<Listener>> LISTENERS = new ConcurrentHashMap<>();

  private record Listener(Consumer<Path> onCreate) {}

  private DirectoryWatch() {}

  /**
   * Calls {@code onCreate} with the name of each entry created in {@code dir} from now on, until
   * the returned handle is closed.
   *
   * @throws IOException when the directory cannot be watched (callers fall back to polling)
   */
  public static AutoCloseable onCreate(Path dir, Consumer<Path> onCreate) throws IOException {
    Listener l = new Listener(onCreate);
    WatchKey key;
    synchronized (DirectoryWatch.class) {
      key = dir.register(service(), StandardWatchEventKinds.ENTRY_CREATE);
      LISTENERS.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(l);
    }
    return () -> {
      synchronized (DirectoryWatch.class) {
        List<Listener> ls = LISTENERS.get(key);
        if (ls != null && ls.remove(l) && ls.isEmpty()) {
          LISTENERS.remove(key);
          key.cancel();
        }
      }
    };
  }

  private static WatchService service() throws IOException {
    if (service == null) {
      service = FileSystems.getDefault().newWatchService();
      Thread t = new Thread(() -> dispatch(service), "directory-watch");
      t.setDaemon(true);
      t.start();
    }
    return service;
  }

  private static void dispatch(WatchService watcher) {
    try {
      while (true) {
        WatchKey k = watcher.take();
        List<Listener> ls = LISTENERS.getOrDefault(k, List.of());
        for (WatchEvent<?> ev : k.pollEvents()) {
          if (ev.context() instanceof Path p) {
            for (Listener l : ls) {
              try {
                l.onCreate().accept(p);
              } catch (RuntimeException e) {
                LOG.warn("a listener for {} failed: {}", k.watchable(), e.toString());
              }
            }
          }
        }
        if (!k.reset()) {
          // The directory is gone (a simulated node removed): its listeners hear nothing more.
          LISTENERS.remove(k);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // The JVM is ending.
    }
  }
}
