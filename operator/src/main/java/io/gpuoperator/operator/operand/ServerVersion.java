package io.gpuoperator.operator.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Adapts rendered objects to the API server they go to. Server-side apply on an older server
 * refuses fields its schema does not declare ("field not declared in schema"), which would stop the
 * whole reconcile; a plain create would silently drop them instead.
 */
final class ServerVersion {
  private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+).*");

  private ServerVersion() {}

  /** Whether {@code gitVersion} (e.g. "v1.20.2") is at least major.minor; unknown counts as new. */
  static boolean atLeast(String gitVersion, int major, int minor) {
    if (gitVersion == null) {
      return true;
    }
    Matcher m = VERSION.matcher(gitVersion);
    if (!m.matches()) {
      return true;
    }
    int maj = Integer.parseInt(m.group(1));
    int min = Integer.parseInt(m.group(2));
    return maj > major || (maj == major && min >= minor);
  }

  /** Removes fields the server does not know yet. */
  static void adapt(HasMetadata object, String gitVersion) {
    // Service.spec.internalTrafficPolicy: alpha in 1.21, on by default from 1.22.
    if (object instanceof Service svc && svc.getSpec() != null && !atLeast(gitVersion, 1, 22)) {
      svc.getSpec().setInternalTrafficPolicy(null);
    }
  }
}
