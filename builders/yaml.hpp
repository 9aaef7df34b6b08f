#pragma once
// A small YAML writer for the workflows relforge generates: nodes built in code, written in block
// style, every scalar plain only where a YAML 1.1 or 1.2 parser reads it back as the same string.
// Pure: no I/O.
#include <string>
#include <string_view>
#include <vector>

namespace relforge::builders {

// A YAML node written in block style: a string, a raw scalar (an integer), nothing (`key:`), a
// mapping with its keys in insertion order, or a sequence.
struct Yaml {
  enum class Kind { string, raw, empty, map, seq };
  Kind kind = Kind::empty;
  std::string text;
  struct Entry;
  std::vector<Entry> entries;
  std::vector<Yaml> items;

  static Yaml str(std::string value);
  static Yaml raw(std::string value);
  static Yaml none();
  static Yaml map();
  static Yaml seq();
  Yaml& add(std::string key, Yaml value);
  Yaml& add(std::string key, std::string value);
  Yaml& add(std::string key, const char* value);
  Yaml& push(Yaml value);
};

// A struct rather than std::pair<std::string, Yaml>: clang 14 cannot instantiate that pair's
// conditionally explicit constructors while Yaml is still being defined (libstdc++ 12).
struct Yaml::Entry {
  std::string key;
  Yaml value;
};

// The document: `root` (a mapping) at indent 0, one line per key, nested blocks indented by 2.
std::string yaml_document(const Yaml& root);

// `text` as one YAML scalar: plain when a YAML parser reads it back as the same string, else
// double-quoted with escapes.
std::string yaml_scalar(std::string_view text);

// Whether `text` holds a control character (below 0x20, or DEL), which no workflow value may.
bool has_control(std::string_view text);

}  // namespace relforge::builders
