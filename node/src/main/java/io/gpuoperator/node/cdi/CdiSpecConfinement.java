package io.gpuoperator.node.cdi;

import io.gpuoperator.node.files.ConfinedRoot;
import io.gpuoperator.node.files.ConfinedRoot.PathOutsideRootException;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses a CDI spec that names a host path (device node or mount source) outside the roots it was
 * generated from, once symlinks are followed as the container runtime follows them: the spec is
 * what puts host files into every GPU container, so it is checked as a whole just before it is
 * written, whatever built it.
 */
public final class CdiSpecConfinement {
  private CdiSpecConfinement() {}

  /**
   * Checks every device node's host path against {@code devices} and every mount's against {@code
   * mounts}.
   *
   * @throws PathOutsideRootException naming the first path that leaves its root, and why
   */
  public static void check(CdiSpec spec, ConfinedRoot devices, ConfinedRoot mounts)
      throws PathOutsideRootException {
    List<CdiSpec.ContainerEdits> edits = new ArrayList<>();
    edits.add(spec.containerEdits());
    spec.devices().forEach(d -> edits.add(d.containerEdits()));
    for (CdiSpec.ContainerEdits e : edits) {
      if (e == null) {
        continue;
      }
      for (CdiSpec.DeviceNode n : e.deviceNodes()) {
        devices.check("device node " + n.path(), n.hostPath() == null ? n.path() : n.hostPath());
      }
      for (CdiSpec.Mount m : e.mounts()) {
        mounts.check("mount " + m.containerPath(), m.hostPath());
      }
    }
  }
}
