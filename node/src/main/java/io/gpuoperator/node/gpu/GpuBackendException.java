package io.gpuoperator.node.gpu;

/**
 * A failed GPU backend call. Each {@link GpuError} has its own subclass (nested here), so callers
 * catch exactly the failure they handle, e.g. {@code catch (GpuBackendException.NotSupported e)};
 * the message is the backend's own (for NVML, {@code nvmlErrorString}) prefixed with what was being
 * done.
 */
public class GpuBackendException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final GpuError error;

  protected GpuBackendException(GpuError error, String message, Throwable cause) {
    super(message, cause);
    this.error = error;
  }

  /** The error kind (NVML return code). */
  public GpuError error() {
    return error;
  }

  /** The typed exception for an error. */
  public static GpuBackendException of(GpuError error, String message) {
    return of(error, message, null);
  }

  /** The typed exception for an error, with a cause. */
  public static GpuBackendException of(GpuError error, String message, Throwable cause) {
    return switch (error) {
      case UNINITIALIZED -> new Uninitialized(message, cause);
      case INVALID_ARGUMENT -> new InvalidArgument(message, cause);
      case NOT_SUPPORTED -> new NotSupported(message, cause);
      case NO_PERMISSION -> new NoPermission(message, cause);
      case ALREADY_INITIALIZED -> new AlreadyInitialized(message, cause);
      case NOT_FOUND -> new NotFound(message, cause);
      case INSUFFICIENT_SIZE -> new InsufficientSize(message, cause);
      case INSUFFICIENT_POWER -> new InsufficientPower(message, cause);
      case DRIVER_NOT_LOADED -> new DriverNotLoaded(message, cause);
      case TIMEOUT -> new Timeout(message, cause);
      case IRQ_ISSUE -> new IrqIssue(message, cause);
      case LIBRARY_NOT_FOUND -> new LibraryNotFound(message, cause);
      case FUNCTION_NOT_FOUND -> new FunctionNotFound(message, cause);
      case CORRUPTED_INFOROM -> new CorruptedInforom(message, cause);
      case GPU_IS_LOST -> new GpuIsLost(message, cause);
      case RESET_REQUIRED -> new ResetRequired(message, cause);
      case OPERATING_SYSTEM -> new OperatingSystem(message, cause);
      case LIB_RM_VERSION_MISMATCH -> new LibRmVersionMismatch(message, cause);
      case IN_USE -> new InUse(message, cause);
      case MEMORY -> new Memory(message, cause);
      case NO_DATA -> new NoData(message, cause);
      case VGPU_ECC_NOT_SUPPORTED -> new VgpuEccNotSupported(message, cause);
      case INSUFFICIENT_RESOURCES -> new InsufficientResources(message, cause);
      case FREQ_NOT_SUPPORTED -> new FreqNotSupported(message, cause);
      case ARGUMENT_VERSION_MISMATCH -> new ArgumentVersionMismatch(message, cause);
      case DEPRECATED -> new Deprecated(message, cause);
      case NOT_READY -> new NotReady(message, cause);
      case GPU_NOT_FOUND -> new GpuNotFound(message, cause);
      case INVALID_STATE -> new InvalidState(message, cause);
      case UNKNOWN -> new Unknown(message, cause);
    };
  }

  /** {@link GpuError#UNINITIALIZED}. */
  public static final class Uninitialized extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public Uninitialized(String message, Throwable cause) {
      super(GpuError.UNINITIALIZED, message, cause);
    }
  }

  /** {@link GpuError#INVALID_ARGUMENT}. */
  public static final class InvalidArgument extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InvalidArgument(String message, Throwable cause) {
      super(GpuError.INVALID_ARGUMENT, message, cause);
    }
  }

  /** {@link GpuError#NOT_SUPPORTED}. */
  public static final class NotSupported extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public NotSupported(String message, Throwable cause) {
      super(GpuError.NOT_SUPPORTED, message, cause);
    }
  }

  /** {@link GpuError#NO_PERMISSION}. */
  public static final class NoPermission extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public NoPermission(String message, Throwable cause) {
      super(GpuError.NO_PERMISSION, message, cause);
    }
  }

  /** {@link GpuError#ALREADY_INITIALIZED}. */
  public static final class AlreadyInitialized extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public AlreadyInitialized(String message, Throwable cause) {
      super(GpuError.ALREADY_INITIALIZED, message, cause);
    }
  }

  /** {@link GpuError#NOT_FOUND}. */
  public static final class NotFound extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public NotFound(String message, Throwable cause) {
      super(GpuError.NOT_FOUND, message, cause);
    }
  }

  /** {@link GpuError#INSUFFICIENT_SIZE}. */
  public static final class InsufficientSize extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InsufficientSize(String message, Throwable cause) {
      super(GpuError.INSUFFICIENT_SIZE, message, cause);
    }
  }

  /** {@link GpuError#INSUFFICIENT_POWER}. */
  public static final class InsufficientPower extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InsufficientPower(String message, Throwable cause) {
      super(GpuError.INSUFFICIENT_POWER, message, cause);
    }
  }

  /** {@link GpuError#DRIVER_NOT_LOADED}. */
  public static final class DriverNotLoaded extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public DriverNotLoaded(String message, Throwable cause) {
      super(GpuError.DRIVER_NOT_LOADED, message, cause);
    }
  }

  /** {@link GpuError#TIMEOUT}. */
  public static final class Timeout extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public Timeout(String message, Throwable cause) {
      super(GpuError.TIMEOUT, message, cause);
    }
  }

  /** {@link GpuError#IRQ_ISSUE}. */
  public static final class IrqIssue extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public IrqIssue(String message, Throwable cause) {
      super(GpuError.IRQ_ISSUE, message, cause);
    }
  }

  /** {@link GpuError#LIBRARY_NOT_FOUND}. */
  public static final class LibraryNotFound extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public LibraryNotFound(String message, Throwable cause) {
      super(GpuError.LIBRARY_NOT_FOUND, message, cause);
    }
  }

  /** {@link GpuError#FUNCTION_NOT_FOUND}. */
  public static final class FunctionNotFound extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public FunctionNotFound(String message, Throwable cause) {
      super(GpuError.FUNCTION_NOT_FOUND, message, cause);
    }
  }

  /** {@link GpuError#CORRUPTED_INFOROM}. */
  public static final class CorruptedInforom extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public CorruptedInforom(String message, Throwable cause) {
      super(GpuError.CORRUPTED_INFOROM, message, cause);
    }
  }

  /** {@link GpuError#GPU_IS_LOST}. */
  public static final class GpuIsLost extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public GpuIsLost(String message, Throwable cause) {
      super(GpuError.GPU_IS_LOST, message, cause);
    }
  }

  /** {@link GpuError#RESET_REQUIRED}. */
  public static final class ResetRequired extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public ResetRequired(String message, Throwable cause) {
      super(GpuError.RESET_REQUIRED, message, cause);
    }
  }

  /** {@link GpuError#OPERATING_SYSTEM}. */
  public static final class OperatingSystem extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public OperatingSystem(String message, Throwable cause) {
      super(GpuError.OPERATING_SYSTEM, message, cause);
    }
  }

  /** {@link GpuError#LIB_RM_VERSION_MISMATCH}. */
  public static final class LibRmVersionMismatch extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public LibRmVersionMismatch(String message, Throwable cause) {
      super(GpuError.LIB_RM_VERSION_MISMATCH, message, cause);
    }
  }

  /** {@link GpuError#IN_USE}. */
  public static final class InUse extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InUse(String message, Throwable cause) {
      super(GpuError.IN_USE, message, cause);
    }
  }

  /** {@link GpuError#MEMORY}. */
  public static final class Memory extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public Memory(String message, Throwable cause) {
      super(GpuError.MEMORY, message, cause);
    }
  }

  /** {@link GpuError#NO_DATA}. */
  public static final class NoData extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public NoData(String message, Throwable cause) {
      super(GpuError.NO_DATA, message, cause);
    }
  }

  /** {@link GpuError#VGPU_ECC_NOT_SUPPORTED}. */
  public static final class VgpuEccNotSupported extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public VgpuEccNotSupported(String message, Throwable cause) {
      super(GpuError.VGPU_ECC_NOT_SUPPORTED, message, cause);
    }
  }

  /** {@link GpuError#INSUFFICIENT_RESOURCES}. */
  public static final class InsufficientResources extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InsufficientResources(String message, Throwable cause) {
      super(GpuError.INSUFFICIENT_RESOURCES, message, cause);
    }
  }

  /** {@link GpuError#FREQ_NOT_SUPPORTED}. */
  public static final class FreqNotSupported extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public FreqNotSupported(String message, Throwable cause) {
      super(GpuError.FREQ_NOT_SUPPORTED, message, cause);
    }
  }

  /** {@link GpuError#ARGUMENT_VERSION_MISMATCH}. */
  public static final class ArgumentVersionMismatch extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public ArgumentVersionMismatch(String message, Throwable cause) {
      super(GpuError.ARGUMENT_VERSION_MISMATCH, message, cause);
    }
  }

  /** {@link GpuError#DEPRECATED}. */
  public static final class Deprecated extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public Deprecated(String message, Throwable cause) {
      super(GpuError.DEPRECATED, message, cause);
    }
  }

  /** {@link GpuError#NOT_READY}. */
  public static final class NotReady extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public NotReady(String message, Throwable cause) {
      super(GpuError.NOT_READY, message, cause);
    }
  }

  /** {@link GpuError#GPU_NOT_FOUND}. */
  public static final class GpuNotFound extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public GpuNotFound(String message, Throwable cause) {
      super(GpuError.GPU_NOT_FOUND, message, cause);
    }
  }

  /** {@link GpuError#INVALID_STATE}. */
  public static final class InvalidState extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public InvalidState(String message, Throwable cause) {
      super(GpuError.INVALID_STATE, message, cause);
    }
  }

  /** {@link GpuError#UNKNOWN}. */
  public static final class Unknown extends GpuBackendException {
    private static final long serialVersionUID = 1L;

    public Unknown(String message, Throwable cause) {
      super(GpuError.UNKNOWN, message, cause);
    }
  }
}
