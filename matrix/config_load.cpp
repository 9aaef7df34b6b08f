// relforge.toml → MatrixSpec: the shape of every table, its keys and types. Cross-references
// (names in rules and templates) are checked afterwards by compile_plan, which knows the layout.
#include <algorithm>
#include <cctype>
#include <tuple>

#include "core/channel_name.hpp"
#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/plan.hpp"
#include "matrix/toml_reader.hpp"
#include "platform/fs.hpp"
#include "platform/toml.hpp"

namespace relforge::matrix {
namespace {

// [build], [runners], [[runner]], [recipe] and [ci] belong to builders/, which reads them itself;
// [release] to release/ (docs/release.md); [fleet] to runner_images/ (docs/fleet.md).
const std::vector<std::string> k_top_keys = {"project", "matrix",  "build", "runners", "runner",
                                             "recipe",  "release", "fleet", "ci"};
const std::vector<std::string> k_project_keys = {"name"};
const std::vector<std::string> k_matrix_keys = {"channels", "id",   "build_id", "vars",  "axis", "zip",
                                                "exclude",  "only", "include",  "field", "emit"};
const std::vector<std::string> k_axis_keys = {"name", "kind", "values"};
const std::vector<std::string> k_axis_kinds = {"plain", "version"};
const std::vector<std::string> k_zip_keys = {"axes"};
const std::vector<std::string> k_field_keys = {"name", "template", "when"};
const std::vector<std::string> k_emit_keys = {"fields"};
// Names with a meaning of their own in rules and templates.
const std::vector<std::string> k_reserved = {"channel",  "channels", "project", "id",
                                             "build_id", "value",    "any"};

bool is_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

enum class RuleKind { exclude, only, include, when };

// The TOML type of a scalar that keeps its type in cells (floats are text).
ValueType type_of(const toml::node& node) {
  if (node.is_boolean()) return ValueType::boolean;
  if (node.is_integer()) return ValueType::integer;
  return ValueType::string;
}

class Loader {
public:
  explicit Loader(const std::string& file) : m_reader(file) { m_spec.file = file; }
  Result<MatrixSpec> load(const toml::table& root);

private:
  Status load_matrix(const toml::table& matrix);
  Status load_axis(const toml::table& table);
  Result<AxisValue> load_value(const toml::node& node, const Axis& axis);
  Status load_zip(const toml::table& table);
  Result<Rule> load_rule(const toml::table& table, RuleKind kind, std::string_view context);
  Result<Condition> load_condition(const std::string& name, const toml::node& node, Location at,
                                   std::string_view context);
  Status load_any(const toml::node& node, Rule& rule, std::string_view context);
  Status load_field(const toml::table& table);
  Result<std::vector<std::string>> channel_list(const toml::node& node, std::string_view what);
  Status check_name(std::string_view name, Location at, std::string_view what);

  TomlReader m_reader;
  MatrixSpec m_spec;
  std::size_t m_patterns = 0;  // glob patterns of every matcher so far, after brace expansion
};

Status Loader::check_name(std::string_view name, Location at, std::string_view what) {
  if (!is_identifier(name)) {
    return m_reader.fail(
        at, std::string(what) + " '" + std::string(name) +
                "' is not a valid name: use letters, digits, '_' and '-', starting with a letter");
  }
  if (std::find(k_reserved.begin(), k_reserved.end(), name) != k_reserved.end()) {
    return m_reader.fail(at, std::string(what) + " '" + std::string(name) + "' is a reserved name (" +
                                 quoted_list(k_reserved) + " have a meaning of their own); rename it");
  }
  return {};
}

Result<std::vector<std::string>> Loader::channel_list(const toml::node& node, std::string_view what) {
  auto names = m_reader.strings(node, what);
  if (!names) return names;
  for (auto& name : *names) {
    const auto known = std::find_if(m_spec.channels.begin(), m_spec.channels.end(),
                                    [&](const std::string& c) { return core::same_channel(c, name); });
    if (known != m_spec.channels.end()) name = *known;  // "release" and "stable" are one channel
    if (known == m_spec.channels.end()) {
      return m_reader.fail(TomlReader::location(node),
                           "unknown channel '" + name + "' in " + std::string(what) +
                               suggestion(name, m_spec.channels) + " (the channels are " +
                               quoted_list(m_spec.channels) + ")");
    }
  }
  return names;
}

Result<MatrixSpec> Loader::load(const toml::table& root) {
  if (auto ok = m_reader.check_keys(root, k_top_keys, "the top level"); !ok)
    return tl::unexpected(ok.error());
  if (const auto* project_node = root.get("project")) {
    auto project = m_reader.table(*project_node, "[project]");
    if (!project) return tl::unexpected(project.error());
    if (auto ok = m_reader.check_keys(**project, k_project_keys, "[project]"); !ok)
      return tl::unexpected(ok.error());
    if (const auto* name = (*project)->get("name")) {
      auto text = m_reader.string(*name, "[project] name");
      if (!text) return tl::unexpected(text.error());
      m_spec.project = std::move(*text);
    }
  }
  const auto* matrix_node = root.get("matrix");
  if (matrix_node == nullptr) {
    return m_reader.fail({}, "no [matrix] table: define the axes with [[matrix.axis]] (see docs/config.md)");
  }
  auto matrix = m_reader.table(*matrix_node, "[matrix]");
  if (!matrix) return tl::unexpected(matrix.error());
  if (auto ok = load_matrix(**matrix); !ok) return tl::unexpected(ok.error());
  return std::move(m_spec);
}

Status Loader::load_matrix(const toml::table& matrix) {
  if (auto ok = m_reader.check_keys(matrix, k_matrix_keys, "[matrix]"); !ok) return ok;
  if (const auto* node = matrix.get("channels")) {
    auto channels = m_reader.strings(*node, "[matrix] channels");
    if (!channels) return tl::unexpected(channels.error());
    for (std::size_t i = 0; i < channels->size(); ++i) {
      const auto& name = (*channels)[i];
      if (!is_identifier(name)) {
        return m_reader.fail(TomlReader::location(*node), "channel '" + name + "' is not a valid name");
      }
      if (std::find(channels->begin(), channels->begin() + static_cast<long>(i), name) !=
          channels->begin() + static_cast<long>(i)) {
        return m_reader.fail(TomlReader::location(*node), "channel '" + name + "' is listed twice");
      }
    }
    m_spec.channels = std::move(*channels);
  }
  for (const auto& [key, target, where] :
       {std::tuple{"id", &m_spec.id_template, &m_spec.id_where},
        std::tuple{"build_id", &m_spec.build_id_template, &m_spec.build_id_where}}) {
    if (const auto* node = matrix.get(key)) {
      auto text = m_reader.string(*node, std::string("[matrix] ") + key);
      if (!text) return tl::unexpected(text.error());
      if (text->empty())
        return m_reader.fail(TomlReader::location(*node), std::string("[matrix] ") + key + " is empty");
      *target = std::move(*text);
      *where = TomlReader::location(*node);
    }
  }
  if (const auto* node = matrix.get("vars")) {
    auto vars = m_reader.table(*node, "[matrix.vars]");
    if (!vars) return tl::unexpected(vars.error());
    for (const auto& [key, value] : TomlReader::ordered(**vars)) {
      if (auto ok = check_name(key->str(), TomlReader::location(*key), "var"); !ok) return ok;
      auto text = m_reader.scalar(*value, "[matrix.vars] " + std::string(key->str()));
      if (!text) return tl::unexpected(text.error());
      m_spec.vars.push_back(Var{std::string(key->str()), std::move(*text)});
    }
  }
  const auto* axes = matrix.get("axis");
  if (axes == nullptr)
    return m_reader.fail(TomlReader::location(matrix),
                         "[matrix] has no [[matrix.axis]]: define at least one axis");
  auto axis_tables = m_reader.tables(*axes, "matrix.axis");
  if (!axis_tables) return tl::unexpected(axis_tables.error());
  for (const auto* table : *axis_tables) {
    if (auto ok = load_axis(*table); !ok) return ok;
  }
  if (const auto* node = matrix.get("zip")) {
    auto tables = m_reader.tables(*node, "matrix.zip");
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      if (auto ok = load_zip(*table); !ok) return ok;
    }
  }
  for (const auto& [key, kind, list] : {std::tuple{"exclude", RuleKind::exclude, &m_spec.excludes},
                                        std::tuple{"only", RuleKind::only, &m_spec.onlys},
                                        std::tuple{"include", RuleKind::include, &m_spec.includes}}) {
    const auto* node = matrix.get(key);
    if (node == nullptr) continue;
    const std::string context = std::string("[[matrix.") + key + "]]";
    auto tables = m_reader.tables(*node, std::string("matrix.") + key);
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      auto rule = load_rule(*table, kind, context);
      if (!rule) return tl::unexpected(rule.error());
      list->push_back(std::move(*rule));
    }
  }
  if (const auto* node = matrix.get("field")) {
    auto tables = m_reader.tables(*node, "matrix.field");
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      if (auto ok = load_field(*table); !ok) return ok;
    }
  }
  if (const auto* node = matrix.get("emit")) {
    auto emit = m_reader.table(*node, "[matrix.emit]");
    if (!emit) return tl::unexpected(emit.error());
    if (auto ok = m_reader.check_keys(**emit, k_emit_keys, "[matrix.emit]"); !ok) return ok;
    if (const auto* fields = (*emit)->get("fields")) {
      auto names = m_reader.strings(*fields, "[matrix.emit] fields");
      if (!names) return tl::unexpected(names.error());
      m_spec.emit_fields = std::move(*names);
      m_spec.emit_where = TomlReader::location(*fields);
    }
  }
  return {};
}

Status Loader::load_axis(const toml::table& table) {
  if (auto ok = m_reader.check_keys(table, k_axis_keys, "[[matrix.axis]]"); !ok) return ok;
  Axis axis;
  axis.where = TomlReader::location(table);
  const auto* name = table.get("name");
  if (name == nullptr) return m_reader.fail(axis.where, "[[matrix.axis]] has no 'name'");
  auto name_text = m_reader.string(*name, "[[matrix.axis]] name");
  if (!name_text) return tl::unexpected(name_text.error());
  axis.name = std::move(*name_text);
  if (auto ok = check_name(axis.name, TomlReader::location(*name), "axis name"); !ok) return ok;
  if (const auto* existing = m_spec.find_axis(axis.name)) {
    return m_reader.fail(TomlReader::location(*name), "axis '" + axis.name +
                                                          "' is defined twice (first at line " +
                                                          std::to_string(existing->where.line) + ")");
  }
  const std::string context = "axis '" + axis.name + "'";
  if (const auto* kind = table.get("kind")) {
    auto text = m_reader.string(*kind, context + " kind");
    if (!text) return tl::unexpected(text.error());
    if (*text == "version") {
      axis.kind = AxisKind::version;
    } else if (*text != "plain") {
      return m_reader.fail(TomlReader::location(*kind),
                           "unknown kind '" + *text + "' of " + context + suggestion(*text, k_axis_kinds));
    }
  }
  const auto* values = table.get("values");
  if (values == nullptr) return m_reader.fail(axis.where, context + " has no 'values'");
  const auto* array = values->as_array();
  if (array == nullptr) {
    return m_reader.fail(TomlReader::location(*values),
                         context + " values must be an array, not " + TomlReader::type_name(*values));
  }
  if (array->empty()) {
    return m_reader.fail(TomlReader::location(*values), context + " has no values: list at least one");
  }
  for (const auto& element : *array) {
    auto value = load_value(element, axis);
    if (!value) return tl::unexpected(value.error());
    for (const auto& existing : axis.values) {
      if (existing.value == value->value) {
        return m_reader.fail(value->where, context + " lists the value '" + value->value + "' twice");
      }
    }
    for (const auto& attribute : value->attributes) {
      if (std::find(axis.attributes.begin(), axis.attributes.end(), attribute.name) ==
          axis.attributes.end()) {
        axis.attributes.push_back(attribute.name);
      }
    }
    axis.values.push_back(std::move(*value));
  }
  m_spec.axes.push_back(std::move(axis));
  return {};
}

Result<AxisValue> Loader::load_value(const toml::node& node, const Axis& axis) {
  AxisValue value;
  value.where = TomlReader::location(node);
  const std::string context = "a value of axis '" + axis.name + "'";
  // A value is a string, a boolean or an integer, bare or as the `value` of a table; floats are
  // refused (3.10 is the number 3.1).
  const auto typed_value = [&](const toml::node& scalar, std::string_view what) -> Status {
    if (scalar.is_string() || scalar.is_boolean() || scalar.is_integer()) {
      auto text = m_reader.scalar(scalar, what);
      if (!text) return tl::unexpected(text.error());
      value.value = std::move(*text);
      value.type = type_of(scalar);
      return {};
    }
    std::string hint = scalar.is_floating_point() ? " (quote it: TOML reads 3.10 as the number 3.1)" : "";
    return m_reader.fail(TomlReader::location(scalar),
                         std::string(what) +
                             " must be a string, boolean, integer or a table with 'value', not " +
                             TomlReader::type_name(scalar) + hint);
  };
  if (!node.is_table()) {
    if (auto ok = typed_value(node, context); !ok) return tl::unexpected(ok.error());
  } else if (const auto* table = node.as_table()) {
    const auto* inner = table->get("value");
    if (inner == nullptr) {
      return m_reader.fail(value.where,
                           context + " is a table without 'value': write { value = \"...\", ... }");
    }
    if (auto ok = typed_value(*inner, context + " 'value'"); !ok) return tl::unexpected(ok.error());
    for (const auto& [key, attribute] : TomlReader::ordered(*table)) {
      const std::string_view name = key->str();
      if (name == "value") continue;
      if (name == "channels") {
        auto channels = channel_list(*attribute, "the channels of " + axis.name + " '" + value.value + "'");
        if (!channels) return tl::unexpected(channels.error());
        value.channels = std::move(*channels);
        continue;
      }
      if (attribute->is_array() || attribute->is_table()) {
        // Any other key is an attribute, so a misspelt `channels` lands here.
        return m_reader.fail(
            TomlReader::location(*key),
            "attribute '" + std::string(name) + "' of " + axis.name + " '" + value.value +
                "' must be a string, integer, float or boolean, not " + TomlReader::type_name(*attribute) +
                (core::closest_match(name, {"channels"}) ? "; did you mean 'channels'?" : ""));
      }
      if (auto ok = check_name(name, TomlReader::location(*key), "attribute"); !ok)
        return tl::unexpected(ok.error());
      auto attribute_text = m_reader.scalar(
          *attribute, "attribute '" + std::string(name) + "' of " + axis.name + " '" + value.value + "'");
      if (!attribute_text) return tl::unexpected(attribute_text.error());
      value.attributes.push_back(
          Attribute{std::string(name), std::move(*attribute_text), type_of(*attribute)});
    }
  }
  if (value.value.empty()) return m_reader.fail(value.where, context + " is an empty string");
  // The `version` attribute wins; a version axis falls back to the value's leading PEP 440 part.
  const std::string* version_attribute = value.attribute("version");
  if (version_attribute != nullptr && !version_attribute->empty()) {
    value.version = version_of(*version_attribute, Leading::not_allowed);
  }
  if (!value.version) {
    value.version =
        version_of(value.value, axis.kind == AxisKind::version ? Leading::allowed : Leading::not_allowed);
  }
  if (axis.kind == AxisKind::version && !value.version) {
    return m_reader.fail(value.where, "axis '" + axis.name + "' has kind = \"version\" but its value '" +
                                          value.value +
                                          "' has no PEP 440 version: give it a version attribute "
                                          "({ value = \"...\", version = \"3.14\" })");
  }
  return value;
}

Status Loader::load_zip(const toml::table& table) {
  if (auto ok = m_reader.check_keys(table, k_zip_keys, "[[matrix.zip]]"); !ok) return ok;
  ZipGroup group;
  group.where = TomlReader::location(table);
  const auto* axes = table.get("axes");
  if (axes == nullptr) return m_reader.fail(group.where, "[[matrix.zip]] has no 'axes'");
  auto names = m_reader.strings(*axes, "[[matrix.zip]] axes");
  if (!names) return tl::unexpected(names.error());
  if (names->size() < 2) {
    return m_reader.fail(TomlReader::location(*axes),
                         "[[matrix.zip]] axes needs at least two axes to zip together");
  }
  group.axes = std::move(*names);
  m_spec.zips.push_back(std::move(group));
  return {};
}

Result<Condition> Loader::load_condition(const std::string& name, const toml::node& node, Location at,
                                         std::string_view context) {
  // A string or boolean or integer, or a list of them; floats and tables are refused.
  std::vector<std::string> alternatives;
  ValueTypes types;
  const auto add = [&](const toml::node& element) -> Status {
    if (!(element.is_string() || element.is_boolean() || element.is_integer())) {
      return m_reader.fail(
          TomlReader::location(element),
          std::string(context) + " '" + name +
              "' must be a string, boolean or integer, or a list of them, not " +
              TomlReader::type_name(element) +
              (element.is_floating_point() ? " (quote numbers: TOML reads 3.10 as the number 3.1)" : ""));
    }
    auto text = m_reader.scalar(element, std::string(context) + " '" + name + "'");
    if (!text) return tl::unexpected(text.error());
    alternatives.push_back(std::move(*text));
    types.push_back(type_of(element));
    return {};
  };
  if (const auto* array = node.as_array()) {
    if (array->empty()) {
      return m_reader.fail(TomlReader::location(node),
                           std::string(context) + " '" + name + "' is an empty list");
    }
    for (const auto& element : *array) {
      if (auto ok = add(element); !ok) return tl::unexpected(ok.error());
    }
  } else if (auto ok = add(node); !ok) {
    return tl::unexpected(ok.error());
  }
  auto matcher = Matcher::parse(alternatives, types);
  if (!matcher) {
    return m_reader.fail(TomlReader::location(node),
                         std::string(context) + " '" + name + "': " + matcher.error().message());
  }
  m_patterns += matcher->patterns();
  if (m_patterns > k_max_total_brace_patterns) {
    return m_reader.fail(
        TomlReader::location(node),
        "the config's matchers expand to more than " + std::to_string(k_max_total_brace_patterns) +
            " glob patterns in all (brace groups multiply): refused; use fewer brace groups");
  }
  if (name == "channel") {
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      const auto& channel = alternatives[i];
      if (types[i] == ValueType::string && is_literal_pattern(channel) && !is_specifier_text(channel) &&
          std::find(m_spec.channels.begin(), m_spec.channels.end(), channel) == m_spec.channels.end()) {
        return m_reader.fail(TomlReader::location(node), "unknown channel '" + channel + "' in " +
                                                             std::string(context) +
                                                             suggestion(channel, m_spec.channels));
      }
    }
  }
  return Condition{name, std::move(*matcher), at};
}

Status Loader::load_any(const toml::node& node, Rule& rule, std::string_view context) {
  const std::string what = std::string(context) + " any";
  const auto* array = node.as_array();
  if (array == nullptr) {
    return m_reader.fail(
        TomlReader::location(node),
        what + " must be a list of tables (any = [{ os = \"linux\" }, { python = \"3.12\" }]), not " +
            TomlReader::type_name(node));
  }
  if (array->empty()) {
    return m_reader.fail(TomlReader::location(node), what + " is an empty list: it would match nothing");
  }
  for (const auto& element : *array) {
    const auto* group = element.as_table();
    if (group == nullptr) {
      return m_reader.fail(
          TomlReader::location(element),
          what + " must list tables ({ key = value, ... }), not " + TomlReader::type_name(element));
    }
    if (group->empty()) {
      return m_reader.fail(
          TomlReader::location(element),
          what + " has an empty table: it would match every cell; remove it or give it keys");
    }
    std::vector<Condition> conditions;
    for (const auto& [key, value] : TomlReader::ordered(*group)) {
      const std::string name(key->str());
      if (name == "any" || name == "channels") {
        return m_reader.fail(TomlReader::location(*key),
                             "'" + name + "' cannot be inside " + what + ": put it beside 'any' in the rule");
      }
      auto condition = load_condition(name, *value, TomlReader::location(*key), what);
      if (!condition) return tl::unexpected(condition.error());
      conditions.push_back(std::move(*condition));
    }
    rule.any.push_back(std::move(conditions));
  }
  return {};
}

Result<Rule> Loader::load_rule(const toml::table& table, RuleKind kind, std::string_view context) {
  Rule rule;
  rule.where = TomlReader::location(table);
  for (const auto& [key, node] : TomlReader::ordered(table)) {
    const std::string name(key->str());
    const Location at = TomlReader::location(*key);
    if (name == "channels") {
      auto channels = channel_list(*node, std::string(context) + " channels");
      if (!channels) return tl::unexpected(channels.error());
      rule.channels = std::move(*channels);
      continue;
    }
    if (name == "any") {
      if (auto ok = load_any(*node, rule, context); !ok) return tl::unexpected(ok.error());
      continue;
    }
    // In an include only axes and `channel` select; every other key is a value it sets.
    if (kind == RuleKind::include && name != "channel" && m_spec.find_axis(name) == nullptr) {
      auto text = m_reader.scalar(*node, std::string(context) + " '" + name + "'");
      if (!text) return tl::unexpected(text.error());
      rule.assignments.push_back(Assignment{name, std::move(*text), type_of(*node), at});
      continue;
    }
    auto condition = load_condition(name, *node, at, context);
    if (!condition) return tl::unexpected(condition.error());
    rule.conditions.push_back(std::move(*condition));
  }
  if ((kind == RuleKind::exclude || kind == RuleKind::only) && rule.conditions.empty() && rule.any.empty()) {
    return m_reader.fail(rule.where, std::string(context) + " has no keys to match: it would " +
                                         (kind == RuleKind::exclude ? "remove" : "keep") + " every cell");
  }
  return rule;
}

Status Loader::load_field(const toml::table& table) {
  if (auto ok = m_reader.check_keys(table, k_field_keys, "[[matrix.field]]"); !ok) return ok;
  DerivedField field;
  field.where = TomlReader::location(table);
  const auto* name = table.get("name");
  if (name == nullptr) return m_reader.fail(field.where, "[[matrix.field]] has no 'name'");
  auto name_text = m_reader.string(*name, "[[matrix.field]] name");
  if (!name_text) return tl::unexpected(name_text.error());
  field.name = std::move(*name_text);
  if (auto ok = check_name(field.name, TomlReader::location(*name), "field name"); !ok) return ok;
  const auto* text = table.get("template");
  if (text == nullptr) return m_reader.fail(field.where, "field '" + field.name + "' has no 'template'");
  auto template_text = m_reader.string(*text, "the template of field '" + field.name + "'");
  if (!template_text) return tl::unexpected(template_text.error());
  field.template_text = std::move(*template_text);
  field.template_where = TomlReader::location(*text);
  if (const auto* when = table.get("when")) {
    auto when_table = m_reader.table(*when, "the 'when' of field '" + field.name + "'");
    if (!when_table) return tl::unexpected(when_table.error());
    auto rule = load_rule(**when_table, RuleKind::when, "the 'when' of field '" + field.name + "'");
    if (!rule) return tl::unexpected(rule.error());
    rule->where = TomlReader::location(*when);
    field.when = std::move(*rule);
  }
  m_spec.fields.push_back(std::move(field));
  return {};
}

}  // namespace

bool AxisValue::on_channel(std::string_view channel) const {
  return channels.empty() || std::any_of(channels.begin(), channels.end(), [&](const std::string& name) {
           return core::same_channel(name, channel);
         });
}

const std::string* AxisValue::attribute(std::string_view name) const {
  for (const auto& attribute : attributes) {
    if (attribute.name == name) return &attribute.value;
  }
  return nullptr;
}

ValueType AxisValue::attribute_type(std::string_view name) const {
  for (const auto& attribute : attributes) {
    if (attribute.name == name) return attribute.type;
  }
  return ValueType::string;
}

bool Rule::on_channel(std::string_view channel) const {
  return channels.empty() || std::any_of(channels.begin(), channels.end(), [&](const std::string& name) {
           return core::same_channel(name, channel);
         });
}

const Axis* MatrixSpec::find_axis(std::string_view name) const {
  for (const auto& axis : axes) {
    if (axis.name == name) return &axis;
  }
  return nullptr;
}

Status MatrixSpec::check_channel(std::string_view channel) const {
  for (const auto& name : channels) {
    if (core::same_channel(name, channel)) return {};
  }
  return fail(ErrorCategory::invalid_input, "unknown channel '" + std::string(channel) + "'" +
                                                suggestion(channel, channels) + " (" + file + " defines " +
                                                quoted_list(channels) + ")");
}

Result<MatrixSpec> parse_spec(std::string_view toml_text, std::string file) {
  auto root = platform::parse_toml(toml_text, file);
  if (!root) return tl::unexpected(root.error());
  auto spec = Loader(file).load(*root);
  if (!spec) return spec;
  if (auto plan = compile_plan(*spec); !plan) return tl::unexpected(plan.error());
  return spec;
}

Result<MatrixSpec> load_spec(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return fail(ErrorCategory::not_found,
                "config file '" + path.string() +
                    "' does not exist (pass --config, or create relforge.toml: see docs/config.md)");
  }
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  return parse_spec(*text, path.string());
}

}  // namespace relforge::matrix
