package io.gpuoperator.node.gpu.nvml;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough of a C reader to check the binding against NVIDIA's {@code nvml.h}: struct layouts
 * (x86-64 alignment rules) and function prototypes. Reads only the simple declarations NVML uses.
 */
final class NvmlHeader {
  private static final Map<String, Integer> SCALARS =
      Map.ofEntries(
          Map.entry("char", 1),
          Map.entry("unsigned char", 1),
          Map.entry("short", 2),
          Map.entry("unsigned short", 2),
          Map.entry("int", 4),
          Map.entry("unsigned int", 4),
          Map.entry("float", 4),
          Map.entry("long long", 8),
          Map.entry("unsigned long long", 8),
          Map.entry("signed long long", 8),
          Map.entry("unsigned long", 8),
          Map.entry("double", 8));

  /** A struct's size, alignment and field offsets. */
  record Layout(int size, int align, Map<String, Integer> offsets) {}

  /** A function's parameter types, normalised (e.g. {@code unsigned int *}). */
  record Prototype(String name, List<String> params) {}

  /** {@code #define}s and enum constants with a literal value. */
  private final Map<String, Integer> defines = new HashMap<>();

  /** Scalar typedefs, e.g. {@code typedef unsigned char nvmlGpuFabricState_t}: name to size. */
  private final Map<String, Integer> scalarTypedefs = new HashMap<>();

  private final Map<String, String> structBodies = new HashMap<>();
  private final Set<String> unions = new HashSet<>();
  final Set<String> handles = new HashSet<>();
  final Set<String> enums = new HashSet<>();
  final Map<String, Prototype> functions = new LinkedHashMap<>();
  private final Map<String, Layout> layouts = new HashMap<>();

  NvmlHeader(String source) {
    String text = source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
    Matcher d = Pattern.compile("#define\\s+(\\w+)\\s+(0x[0-9a-fA-F]+|\\d+)\\b").matcher(text);
    while (d.find()) {
      defines.put(d.group(1), Long.decode(d.group(2)).intValue());
    }
    // A struct member declared as an anonymous struct (nvmlGpmMetric_t's metricInfo) becomes a
    // member of a named type, so the one-level struct reader below can lay it out.
    Matcher nested =
        Pattern.compile("(?<!typedef\\s)struct\\s*\\{([^{}]*)\\}\\s*(\\w+)\\s*;").matcher(text);
    StringBuilder flat = new StringBuilder();
    int anonymous = 0;
    while (nested.find()) {
      String type = "anonymous_struct_" + anonymous++;
      structBodies.put(type, nested.group(1));
      nested.appendReplacement(flat, type + " " + nested.group(2) + ";");
    }
    nested.appendTail(flat);
    text = flat.toString();
    Matcher s =
        Pattern.compile("typedef\\s+struct\\s*\\w*\\s*\\{([^{}]*)\\}\\s*(\\w+)\\s*;").matcher(text);
    while (s.find()) {
      structBodies.put(s.group(2), s.group(1));
    }
    Matcher u =
        Pattern.compile("typedef\\s+union\\s*\\w*\\s*\\{([^{}]*)\\}\\s*(\\w+)\\s*;").matcher(text);
    while (u.find()) {
      structBodies.put(u.group(2), u.group(1));
      unions.add(u.group(2));
    }
    Matcher st = Pattern.compile("typedef\\s+([\\w ]+?)\\s+(\\w+)\\s*;").matcher(text);
    while (st.find()) {
      Integer size = SCALARS.get(st.group(1).trim().replaceAll("\\s+", " "));
      if (size != null) {
        scalarTypedefs.put(st.group(2), size);
      }
    }
    Matcher h = Pattern.compile("typedef\\s+struct\\s+\\w+\\s*\\*\\s*(\\w+)\\s*;").matcher(text);
    while (h.find()) {
      handles.add(h.group(1));
    }
    Matcher e =
        Pattern.compile("typedef\\s+enum\\s*\\w*\\s*\\{([^{}]*)\\}\\s*(\\w+)\\s*;").matcher(text);
    Pattern valued = Pattern.compile("(\\w+)\\s*=\\s*(0x[0-9a-fA-F]+|\\d+)\\s*(?:,|$)");
    while (e.find()) {
      enums.add(e.group(2));
      Matcher c = valued.matcher(e.group(1).strip());
      while (c.find()) {
        defines.put(c.group(1), Long.decode(c.group(2)).intValue());
      }
    }
    Matcher f =
        Pattern.compile("nvmlReturn_t\\s+DECLDIR\\s+(\\w+)\\s*\\(([^)]*)\\)\\s*;").matcher(text);
    while (f.find()) {
      List<String> params = new ArrayList<>();
      String args = f.group(2).trim();
      if (!args.isEmpty() && !args.equals("void")) {
        for (String a : args.split(",")) {
          params.add(paramType(a));
        }
      }
      functions.put(f.group(1), new Prototype(f.group(1), params));
    }
    // nvmlErrorString returns a string, not nvmlReturn_t.
    Matcher es =
        Pattern.compile("const\\s+DECLDIR\\s+char\\s*\\*\\s*(nvmlErrorString)\\s*\\(([^)]*)\\)")
            .matcher(text);
    if (es.find()) {
      functions.put(es.group(1), new Prototype(es.group(1), List.of(paramType(es.group(2)))));
    }
  }

  /** The type of a parameter declaration without its name, e.g. {@code const char *}. */
  private static String paramType(String decl) {
    String t = decl.trim().replaceAll("\\s+", " ").replaceAll("\\s*\\*\\s*", " * ").trim();
    t = t.replaceAll("\\s*\\w+$", "").trim(); // drop the parameter name
    return t.replaceAll("\\s+", " ");
  }

  /** A {@code #define} or enum constant with a literal value, null when there is none. */
  Integer constant(String name) {
    return defines.get(name);
  }

  /** The size of a scalar type or scalar typedef, null for another type. */
  Integer scalarSize(String type) {
    Integer size = SCALARS.get(type);
    return size != null ? size : scalarTypedefs.get(type);
  }

  /** True when the header defines this struct typedef. */
  boolean hasStruct(String type) {
    return structBodies.containsKey(type);
  }

  Layout layout(String type) {
    Layout cached = layouts.get(type);
    if (cached != null) {
      return cached;
    }
    String body = structBodies.get(type);
    if (body == null) {
      throw new IllegalArgumentException("nvml.h has no struct " + type);
    }
    Map<String, Integer> offsets = new LinkedHashMap<>();
    int offset = 0;
    int align = 1;
    Pattern field = Pattern.compile("^(.*?)\\b(\\w+)\\s*(?:\\[(\\w+)\\])?$");
    for (String decl : body.split(";")) {
      String dcl = decl.trim().replaceAll("\\s+", " ");
      if (dcl.isEmpty()) {
        continue;
      }
      Matcher m = field.matcher(dcl);
      if (!m.matches()) {
        throw new IllegalArgumentException("cannot read field '" + dcl + "' of " + type);
      }
      String ftype = m.group(1).trim();
      int count = m.group(3) == null ? 1 : dimension(m.group(3));
      int[] sa = sizeAlign(ftype);
      align = Math.max(align, sa[1]);
      if (unions.contains(type)) {
        // Every member of a union starts at 0; the union is as large as its largest member.
        offsets.put(m.group(2), 0);
        offset = Math.max(offset, sa[0] * count);
        continue;
      }
      offset = roundUp(offset, sa[1]);
      offsets.put(m.group(2), offset);
      offset += sa[0] * count;
    }
    Layout l = new Layout(roundUp(offset, align), align, offsets);
    layouts.put(type, l);
    return l;
  }

  private int dimension(String token) {
    if (token.matches("\\d+")) {
      return Integer.parseInt(token);
    }
    Integer v = defines.get(token);
    if (v == null) {
      throw new IllegalArgumentException("unknown array size " + token);
    }
    return v;
  }

  private int[] sizeAlign(String type) {
    if (type.endsWith("*") || handles.contains(type)) {
      return new int[] {8, 8};
    }
    Integer scalar = scalarSize(type);
    if (scalar != null) {
      return new int[] {scalar, scalar};
    }
    if (enums.contains(type) || type.equals("nvmlReturn_t")) {
      return new int[] {4, 4};
    }
    Layout l = layout(type);
    return new int[] {l.size(), l.align()};
  }

  private static int roundUp(int v, int a) {
    return (v + a - 1) / a * a;
  }
}
