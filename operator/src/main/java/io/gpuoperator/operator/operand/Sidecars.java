package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.gpuoperator.api.common.ComponentSpec;
import io.gpuoperator.api.v1.DriverSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The driver DaemonSet's optional sidecars, as in the original: {@code nvidia-peermem-ctr}
 * (GPUDirect RDMA, the driver image), {@code nvidia-fs-ctr} (GPUDirect Storage, {@code spec.gds})
 * and {@code nvidia-gdrcopy-ctr} ({@code spec.gdrcopy}); each loads its kernel module once the
 * driver is up and unloads it on stop.
 */
final class Sidecars {
  private Sidecars() {}

  static void add(PodSpec pod, Container driver, RenderContext ctx, DriverSpec d, boolean rdma) {
    String suffix = ctx.facts().osTag() == null ? null : "-" + ctx.facts().osTag();
    if (rdma) {
      pod.getContainers()
          .add(
              sidecar(
                  "nvidia-peermem-ctr",
                  driver.getImage(),
                  driver.getImagePullPolicy(),
                  List.of("nvidia-driver"),
                  List.of("reload_nvidia_peermem"),
                  null));
    }
    ComponentSpec gds = ctx.spec().gds;
    if (gds != null && Boolean.TRUE.equals(gds.enabled)) {
      DaemonSets.setEnv(driver, "GDS_ENABLED", "true");
      pod.getContainers()
          .add(
              sidecar(
                  "nvidia-fs-ctr",
                  image(gds, "spec.gds", suffix),
                  ImageResolver.pullPolicy(gds.imagePullPolicy),
                  List.of("nvidia-gds-driver"),
                  gds.args == null || gds.args.isEmpty() ? List.of("start") : gds.args,
                  gds));
    }
    ComponentSpec gdrcopy = ctx.spec().gdrcopy;
    if (gdrcopy != null && Boolean.TRUE.equals(gdrcopy.enabled)) {
      DaemonSets.setEnv(driver, "GDRCOPY_ENABLED", "true");
      pod.getContainers()
          .add(
              sidecar(
                  "nvidia-gdrcopy-ctr",
                  image(gdrcopy, "spec.gdrcopy", suffix),
                  ImageResolver.pullPolicy(gdrcopy.imagePullPolicy),
                  List.of("nvidia-gdrcopy-driver"),
                  gdrcopy.args == null || gdrcopy.args.isEmpty() ? List.of("start") : gdrcopy.args,
                  gdrcopy));
    }
  }

  /** Sidecar images are per OS like the driver's: {@code repo/image:version-<osTag>}. */
  private static String image(ComponentSpec c, String path, String suffix) {
    ImageResolver.Parts parts = ImageResolver.parts(c, path);
    if (parts == null) {
      return ImageResolver.resolve(c, path, null);
    }
    return parts.verbatim() ? parts.image() : parts.reference(suffix);
  }

  private static Container sidecar(
      String name,
      String image,
      String pullPolicy,
      List<String> command,
      List<String> args,
      ComponentSpec spec) {
    Container c =
        new ContainerBuilder()
            .withName(name)
            .withImage(image)
            .withImagePullPolicy(pullPolicy)
            .withCommand(new ArrayList<>(command))
            .withArgs(new ArrayList<>(args))
            .withNewSecurityContext()
            .withPrivileged(true)
            .withNewSeLinuxOptions()
            .withLevel("s0")
            .endSeLinuxOptions()
            .endSecurityContext()
            .addNewVolumeMount()
            .withName("run-nvidia")
            .withMountPath("/run/nvidia")
            .withMountPropagation("Bidirectional")
            .endVolumeMount()
            .addNewVolumeMount()
            .withName("var-log")
            .withMountPath("/var/log")
            .endVolumeMount()
            .addNewVolumeMount()
            .withName("host-root")
            .withMountPath("/host")
            .withReadOnly(true)
            .withMountPropagation("HostToContainer")
            .endVolumeMount()
            .build();
    if (spec != null && spec.env != null) {
      spec.env.forEach(e -> DaemonSets.setEnv(c, e.name, e.value));
    }
    return c;
  }
}
