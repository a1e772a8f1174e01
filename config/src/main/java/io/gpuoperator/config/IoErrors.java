package io.gpuoperator.config;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** An I/O failure in words ("no such file", "permission denied"), without Java type names. */
public final class IoErrors {
  private IoErrors() {}

  /**
   * The file and what went wrong, e.g. {@code /run/nvidia/toolkit/toolkit.pid: permission denied}
   * (a file system error's message alone is only the path).
   */
  public static String explain(IOException e) {
    if (e instanceof FileSystemException f && f.getFile() != null) {
      String other = f.getOtherFile() == null ? "" : " -> " + f.getOtherFile();
      return f.getFile() + other + ": " + describe(e);
    }
    return describe(e);
  }

  /** What went wrong, e.g. {@code no such file} or {@code permission denied}. */
  public static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "a part of the path is not a directory";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason().toLowerCase(java.util.Locale.ROOT);
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? "input/output error" : m.lines().findFirst().orElse(m);
  }
}
