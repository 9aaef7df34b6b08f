#pragma once
// The relforge.toml matrix model (docs/config.md): axes, zip groups, exclude/only/include rules,
// derived fields, ids. parse_spec checks every key, name and matcher, with file:line:col errors.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "matrix/diagnostics.hpp"
#include "matrix/matcher.hpp"
#include "packaging/version.hpp"

namespace relforge::matrix {

enum class AxisKind { plain, version };

struct Attribute {
  std::string name;
  std::string value;
  ValueType type = ValueType::string;
};

struct AxisValue {
  std::string value;
  ValueType type = ValueType::string;  // `true`, `3` and "x" stay apart
  std::vector<Attribute> attributes;   // in file order
  std::vector<std::string> channels;   // empty: available on every channel
  std::optional<packaging::Version> version;
  Location where;

  bool on_channel(std::string_view channel) const;
  const std::string* attribute(std::string_view name) const;
  ValueType attribute_type(std::string_view name) const;  // string when it has no such attribute
};

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::plain;
  std::vector<AxisValue> values;
  std::vector<std::string> attributes;  // every attribute name of its values, first appearance first
  Location where;
};

struct ZipGroup {
  std::vector<std::string> axes;
  Location where;
};

// `key = matcher` in a rule: the key names an axis, `axis.attr`, `channel` or a field.
struct Condition {
  std::string key;
  Matcher matcher;
  Location where;
};

// `key = "value"` in an include: a field it adds, or an `axis.attr` it overwrites.
struct Assignment {
  std::string key;
  std::string value;
  ValueType type = ValueType::string;
  Location where;
};

// An exclude, only, include or `when` table.
struct Rule {
  std::vector<Condition> conditions;  // all must match
  // `any = [{...}, {...}]`: when present, at least one group must match too (each group: all of
  // its conditions).
  std::vector<std::vector<Condition>> any;
  std::vector<std::string> channels;    // `channels = [...]`; empty: every channel
  std::vector<Assignment> assignments;  // include only
  Location where;

  bool on_channel(std::string_view channel) const;
};

struct DerivedField {
  std::string name;
  std::string template_text;
  std::optional<Rule> when;
  Location where;
  Location template_where;
};

struct Var {
  std::string name;
  std::string value;
};

inline const std::vector<std::string> k_default_channels = {"nightly", "test", "release"};

struct MatrixSpec {
  std::string file;  // the name errors use
  std::string project;
  std::vector<std::string> channels = k_default_channels;
  std::string id_template;  // empty: the axis values joined with "-"
  Location id_where;
  std::string build_id_template;  // empty: the id
  Location build_id_where;
  std::vector<Var> vars;
  std::vector<Axis> axes;
  std::vector<ZipGroup> zips;
  std::vector<Rule> excludes;
  // [[matrix.only]]: when any apply on a channel, a combination stays only if one of them matches.
  std::vector<Rule> onlys;
  std::vector<Rule> includes;
  std::vector<DerivedField> fields;
  std::vector<std::string> emit_fields;  // empty: id and every field
  Location emit_where;

  const Axis* find_axis(std::string_view name) const;
  // invalid_input naming the known channels when `channel` is not one of them.
  Status check_channel(std::string_view channel) const;
};

// Parses and validates relforge.toml text; `file` is the name used in messages.
Result<MatrixSpec> parse_spec(std::string_view toml_text, std::string file);

// Reads and parses a file (not_found when it does not exist).
Result<MatrixSpec> load_spec(const std::filesystem::path& path);

}  // namespace relforge::matrix
