#include "matrix/plan.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace relforge::matrix {
namespace {

enum class RuleKind { exclude, only, include, when };

class Compiler {
public:
  explicit Compiler(const MatrixSpec& spec) : m_spec(spec) {}
  Result<Plan> run();

private:
  tl::unexpected<Error> error(Location at, std::string message) const {
    return fail_at(m_spec.file, at, std::move(message));
  }
  Status check_names();
  Status check_zips();
  void build_layout();
  // Every name usable at this point, for suggestions.
  std::vector<std::string> known_names(std::size_t field_index) const;
  Result<SlotTest> resolve_test(const Condition& condition, RuleKind kind, std::string_view context,
                                std::size_t field_index) const;
  Result<CompiledRule> compile_rule(const Rule& rule, RuleKind kind, std::string_view context,
                                    std::size_t field_index) const;
  Result<Template> compile_template(const std::string& text, Location at, std::string_view context,
                                    std::size_t field_index, bool allow_id) const;
  // A rule's test of an axis that matches no value of it on any channel can never apply: a typo
  // (an include's pattern, any other rule's literal).
  Status check_axis_tests(const CompiledRule& compiled, RuleKind kind, std::string_view context) const;

  const MatrixSpec& m_spec;
  Plan m_plan;
  std::unordered_map<std::string, std::size_t> m_first_definition;  // derived field -> index
  std::vector<std::string> m_include_keys;
};

Status Compiler::check_names() {
  for (std::size_t i = 0; i < m_spec.fields.size(); ++i) {
    const auto& field = m_spec.fields[i];
    if (m_spec.find_axis(field.name) != nullptr) {
      return error(field.where, "field '" + field.name + "' has the name of an axis; rename the field");
    }
    m_first_definition.emplace(field.name, i);
  }
  for (const auto& include : m_spec.includes) {
    for (const auto& assignment : include.assignments) {
      const auto dot = assignment.key.find('.');
      if (dot != std::string::npos) {
        const std::string axis_name = assignment.key.substr(0, dot);
        const std::string attribute = assignment.key.substr(dot + 1);
        const Axis* axis = m_spec.find_axis(axis_name);
        if (axis == nullptr) {
          std::vector<std::string> axes;
          for (const auto& a : m_spec.axes) axes.push_back(a.name);
          return error(assignment.where, "[[matrix.include]] sets '" + assignment.key + "', but '" +
                                             axis_name + "' is not an axis" + suggestion(axis_name, axes));
        }
        if (std::find(axis->attributes.begin(), axis->attributes.end(), attribute) ==
            axis->attributes.end()) {
          return error(assignment.where, "[[matrix.include]] sets '" + assignment.key + "', but axis '" +
                                             axis_name + "' has no attribute '" + attribute + "'" +
                                             suggestion(attribute, axis->attributes));
        }
        continue;
      }
      if (assignment.key == "id" || assignment.key == "build_id" || assignment.key == "project") {
        return error(assignment.where, "[[matrix.include]] cannot set '" + assignment.key +
                                           "': it is computed (use [matrix] id/build_id templates)");
      }
      if (auto it = m_first_definition.find(assignment.key); it != m_first_definition.end()) {
        return error(assignment.where, "[[matrix.include]] sets '" + assignment.key +
                                           "', which is a derived field (line " +
                                           std::to_string(m_spec.fields[it->second].where.line) +
                                           "); give the field a `when` override instead");
      }
      if (std::find(m_include_keys.begin(), m_include_keys.end(), assignment.key) == m_include_keys.end()) {
        m_include_keys.push_back(assignment.key);
      }
    }
  }
  for (const auto& var : m_spec.vars) {
    const bool clash =
        m_spec.find_axis(var.name) != nullptr || m_first_definition.count(var.name) != 0 ||
        std::find(m_include_keys.begin(), m_include_keys.end(), var.name) != m_include_keys.end();
    if (clash) {
      return error({}, "[matrix.vars] " + var.name + " has the name of an axis or field; {" + var.name +
                           "} would be ambiguous: rename the var");
    }
  }
  return {};
}

Status Compiler::check_zips() {
  std::vector<std::string> axes;
  for (const auto& a : m_spec.axes) axes.push_back(a.name);
  std::unordered_map<std::string, const ZipGroup*> owner;
  for (const auto& group : m_spec.zips) {
    for (const auto& name : group.axes) {
      if (m_spec.find_axis(name) == nullptr) {
        return error(group.where,
                     "[[matrix.zip]] names '" + name + "', which is not an axis" + suggestion(name, axes));
      }
      if (auto [it, fresh] = owner.emplace(name, &group); !fresh) {
        if (it->second == &group) return error(group.where, "[[matrix.zip]] lists axis '" + name + "' twice");
        return error(group.where, "axis '" + name + "' is in two [[matrix.zip]] groups (lines " +
                                      std::to_string(it->second->where.line) + " and " +
                                      std::to_string(group.where.line) +
                                      "); an axis belongs to at most one group");
      }
    }
    // conda-forge zip_keys: the lists advance together, so they must be equally long on every channel.
    for (const auto& channel : m_spec.channels) {
      std::vector<std::size_t> lengths;
      for (const auto& name : group.axes) {
        const Axis* axis = m_spec.find_axis(name);
        lengths.push_back(static_cast<std::size_t>(
            std::count_if(axis->values.begin(), axis->values.end(),
                          [&](const AxisValue& v) { return v.on_channel(channel); })));
      }
      if (std::adjacent_find(lengths.begin(), lengths.end(), std::not_equal_to<>()) == lengths.end())
        continue;
      std::string detail;
      for (std::size_t i = 0; i < group.axes.size(); ++i) {
        if (i > 0) detail += ", ";
        detail += "'" + group.axes[i] + "' has " + std::to_string(lengths[i]);
      }
      return error(group.where, "[[matrix.zip]] axes have unequal lengths on channel '" + channel +
                                    "': " + detail + " values; zipped axes need the same number of values");
    }
  }
  return {};
}

void Compiler::build_layout() {
  auto names = std::make_shared<FieldNames>();
  Layout& layout = m_plan.layout;
  for (const auto& axis : m_spec.axes) names->push_back(axis.name);
  layout.axis_count = static_cast<std::uint32_t>(names->size());
  for (const auto& axis : m_spec.axes) {
    layout.attribute_begin.push_back(static_cast<std::uint32_t>(names->size()));
    for (const auto& attribute : axis.attributes) names->push_back(axis.name + "." + attribute);
  }
  layout.include_begin = static_cast<std::uint32_t>(names->size());
  for (const auto& key : m_include_keys) names->push_back(key);
  layout.field_begin = static_cast<std::uint32_t>(names->size());
  for (const auto& field : m_spec.fields) {
    if (std::find(names->begin() + layout.field_begin, names->end(), field.name) == names->end()) {
      names->push_back(field.name);
    }
  }
  layout.channel_slot = static_cast<std::uint32_t>(names->size());
  names->push_back("channel");
  for (std::uint32_t i = 0; i < names->size(); ++i) layout.index.emplace((*names)[i], i);
  layout.names = std::move(names);
}

std::vector<std::string> Compiler::known_names(std::size_t field_index) const {
  std::vector<std::string> out;
  for (const auto& name : *m_plan.layout.names) {
    auto it = m_first_definition.find(name);
    if (it == m_first_definition.end() || it->second < field_index) out.push_back(name);
  }
  for (const auto& var : m_spec.vars) out.push_back(var.name);
  if (!m_spec.project.empty()) out.push_back("project");
  return out;
}

Result<SlotTest> Compiler::resolve_test(const Condition& condition, RuleKind kind, std::string_view context,
                                        std::size_t field_index) const {
  SlotTest test;
  test.matcher = condition.matcher;
  const std::string& key = condition.key;
  const auto named = [&](const std::string& what) {
    return std::string(context) + " names '" + key + "', which " + what;
  };
  if (key == "channel") {
    test.target = SlotTest::Target::channel;
    test.slot = m_plan.layout.channel_slot;
    return test;
  }
  std::vector<std::string> axes;
  for (const auto& a : m_spec.axes) axes.push_back(a.name);
  const auto dot = key.find('.');
  const std::string axis_name = key.substr(0, dot);
  for (std::uint32_t a = 0; a < m_spec.axes.size(); ++a) {
    if (m_spec.axes[a].name != axis_name) continue;
    test.axis = a;
    if (dot == std::string::npos) {
      test.target = SlotTest::Target::axis;
      test.slot = a;
      return test;
    }
    const std::string attribute = key.substr(dot + 1);
    const auto& attributes = m_spec.axes[a].attributes;
    const auto it = std::find(attributes.begin(), attributes.end(), attribute);
    if (it == attributes.end()) {
      return error(condition.where, named("is not an attribute of axis '" + axis_name + "'") +
                                        suggestion(attribute, attributes));
    }
    test.target = SlotTest::Target::attribute;
    test.slot = m_plan.layout.attribute_begin[a] + static_cast<std::uint32_t>(it - attributes.begin());
    return test;
  }
  if (kind == RuleKind::when) {
    if (auto slot = m_plan.layout.slot(key); slot && dot == std::string::npos) {
      auto first = m_first_definition.find(key);
      if (first == m_first_definition.end() || first->second < field_index) {
        test.target = SlotTest::Target::field;
        test.slot = *slot;
        return test;
      }
      return error(condition.where,
                   named("is not computed yet: field '" + key + "' is defined at line " +
                         std::to_string(m_spec.fields[first->second].where.line) + "; define it earlier"));
    }
    auto names = known_names(field_index);
    std::erase_if(names, [&](const std::string& n) {
      return std::any_of(m_spec.vars.begin(), m_spec.vars.end(), [&](const Var& v) { return v.name == n; }) ||
             n == "project";
    });
    return error(condition.where, named("is not an axis or field") + suggestion(key, names));
  }
  if (dot != std::string::npos) {
    return error(condition.where, named("is not an axis") + suggestion(axis_name, axes));
  }
  if (m_first_definition.count(key) != 0 ||
      std::find(m_include_keys.begin(), m_include_keys.end(), key) != m_include_keys.end()) {
    return error(condition.where, named("is a field; " + std::string(context) +
                                        " applies before fields are set: match on axes or `axis.attr`"));
  }
  return error(condition.where, named("is not an axis") + suggestion(key, axes));
}

Result<CompiledRule> Compiler::compile_rule(const Rule& rule, RuleKind kind, std::string_view context,
                                            std::size_t field_index) const {
  CompiledRule compiled;
  compiled.rule = &rule;
  for (const auto& condition : rule.conditions) {
    auto test = resolve_test(condition, kind, context, field_index);
    if (!test) return tl::unexpected(test.error());
    compiled.tests.push_back(std::move(*test));
  }
  for (const auto& group : rule.any) {
    auto& tests = compiled.any.emplace_back();
    for (const auto& condition : group) {
      auto test = resolve_test(condition, kind, std::string(context) + " any", field_index);
      if (!test) return tl::unexpected(test.error());
      tests.push_back(std::move(*test));
    }
  }
  for (const auto& assignment : rule.assignments) {
    compiled.assignments.push_back(
        CompiledAssignment{*m_plan.layout.slot(assignment.key), assignment.value, assignment.type});
  }
  return compiled;
}

Status Compiler::check_axis_tests(const CompiledRule& compiled, RuleKind kind,
                                  std::string_view context) const {
  const auto check = [&](const SlotTest& test, const Condition& condition) -> Status {
    if (test.target != SlotTest::Target::axis) return {};
    // An include's literal may add a combination, and a pattern cannot make a new value; elsewhere
    // a pattern may guard against values to come ("rocm*"), while a literal no value has is a typo.
    if ((kind == RuleKind::include) != (test.matcher.literal() == nullptr)) return {};
    const Axis& axis = m_spec.axes[test.axis];
    const bool any = std::any_of(axis.values.begin(), axis.values.end(), [&](const AxisValue& value) {
      return test.matcher.matches(value.value, value.version ? &*value.version : nullptr, value.type);
    });
    if (any) return {};
    if (kind == RuleKind::include)
      return error(condition.where,
                   std::string(context) + " " + axis.name + " = " + test.matcher.describe() +
                       " matches no value of axis '" + axis.name +
                       "', so the include can never apply (a pattern cannot make a new value)");
    std::vector<std::string> values;
    for (const auto& value : axis.values) values.push_back(value.value);
    const std::string closest = suggestion(*test.matcher.literal(), values);
    return error(condition.where,
                 std::string(context) + " " + axis.name + " = " + test.matcher.describe() +
                     " matches no value of axis '" + axis.name + "' (" + core::join(values, ", ") +
                     "), so it can never apply" +
                     (closest.find("did you mean") != std::string::npos ? closest : std::string()));
  };
  for (std::size_t i = 0; i < compiled.tests.size(); ++i) {
    if (auto ok = check(compiled.tests[i], compiled.rule->conditions[i]); !ok) return ok;
  }
  if (kind == RuleKind::include) return {};
  for (std::size_t g = 0; g < compiled.any.size(); ++g) {
    for (std::size_t i = 0; i < compiled.any[g].size(); ++i) {
      if (auto ok = check(compiled.any[g][i], compiled.rule->any[g][i]); !ok) return ok;
    }
  }
  return {};
}

Result<Template> Compiler::compile_template(const std::string& text, Location at, std::string_view context,
                                            std::size_t field_index, bool allow_id) const {
  const auto resolve = [&](std::string_view name) -> Result<NameBinding> {
    NameBinding binding;
    if (name == "project") {
      if (m_spec.project.empty()) {
        return fail(ErrorCategory::invalid_input, "{project} is used but [project] name is not set");
      }
      binding.constant = m_spec.project;
      return binding;
    }
    for (const auto& var : m_spec.vars) {
      if (var.name == name) {
        binding.constant = var.value;
        return binding;
      }
    }
    if (allow_id && name == "id") {
      binding.slot = NameBinding::k_id;
      return binding;
    }
    if (auto slot = m_plan.layout.slot(name)) {
      auto first = m_first_definition.find(std::string(name));
      if (first != m_first_definition.end() && first->second >= field_index) {
        if (first->second == field_index) {
          return fail(ErrorCategory::invalid_input, "field '" + std::string(name) + "' refers to itself");
        }
        return fail(ErrorCategory::invalid_input,
                    "field '" + std::string(name) + "' is defined later (line " +
                        std::to_string(m_spec.fields[first->second].where.line) +
                        "); define it before it is used");
      }
      binding.slot = *slot;
      return binding;
    }
    auto names = known_names(field_index);
    if (allow_id) names.push_back("id");
    return fail(ErrorCategory::invalid_input,
                "unknown name '" + std::string(name) + "'" + suggestion(name, names));
  };
  auto compiled = Template::compile(text, resolve);
  if (!compiled) return error(at, std::string(context) + ": " + compiled.error().message());
  return compiled;
}

Result<Plan> Compiler::run() {
  if (auto ok = check_names(); !ok) return tl::unexpected(ok.error());
  if (auto ok = check_zips(); !ok) return tl::unexpected(ok.error());
  build_layout();
  const std::size_t all_fields = m_spec.fields.size();
  for (const auto& rule : m_spec.excludes) {
    auto compiled = compile_rule(rule, RuleKind::exclude, "[[matrix.exclude]]", all_fields);
    if (!compiled) return tl::unexpected(compiled.error());
    if (auto ok = check_axis_tests(*compiled, RuleKind::exclude, "[[matrix.exclude]]"); !ok)
      return tl::unexpected(ok.error());
    m_plan.excludes.push_back(std::move(*compiled));
  }
  for (const auto& rule : m_spec.onlys) {
    auto compiled = compile_rule(rule, RuleKind::only, "[[matrix.only]]", all_fields);
    if (!compiled) return tl::unexpected(compiled.error());
    if (auto ok = check_axis_tests(*compiled, RuleKind::only, "[[matrix.only]]"); !ok)
      return tl::unexpected(ok.error());
    m_plan.onlys.push_back(std::move(*compiled));
  }
  for (const auto& rule : m_spec.includes) {
    auto compiled = compile_rule(rule, RuleKind::include, "[[matrix.include]]", all_fields);
    if (!compiled) return tl::unexpected(compiled.error());
    if (auto ok = check_axis_tests(*compiled, RuleKind::include, "[[matrix.include]]"); !ok)
      return tl::unexpected(ok.error());
    m_plan.includes.push_back(std::move(*compiled));
  }
  for (std::size_t i = 0; i < m_spec.fields.size(); ++i) {
    const auto& field = m_spec.fields[i];
    const std::string context = "field '" + field.name + "'";
    CompiledField compiled;
    compiled.source = &field;
    compiled.slot = *m_plan.layout.slot(field.name);
    // Names first defined before `i` are visible, so an override may read its own earlier value.
    auto text = compile_template(field.template_text, field.template_where, context, i, false);
    if (!text) return tl::unexpected(text.error());
    compiled.text = std::move(*text);
    if (field.when) {
      auto when = compile_rule(*field.when, RuleKind::when, "the 'when' of " + context, i);
      if (!when) return tl::unexpected(when.error());
      if (auto ok = check_axis_tests(*when, RuleKind::when, "the 'when' of " + context); !ok)
        return tl::unexpected(ok.error());
      compiled.when = std::move(*when);
    }
    m_plan.fields.push_back(std::move(compiled));
  }
  if (!m_spec.id_template.empty()) {
    auto text = compile_template(m_spec.id_template, m_spec.id_where, "[matrix] id", all_fields, false);
    if (!text) return tl::unexpected(text.error());
    m_plan.id = std::move(*text);
  }
  if (!m_spec.build_id_template.empty()) {
    auto text = compile_template(m_spec.build_id_template, m_spec.build_id_where, "[matrix] build_id",
                                 all_fields, true);
    if (!text) return tl::unexpected(text.error());
    m_plan.build_id = std::move(*text);
  }
  for (const auto& name : m_spec.emit_fields) {
    if (name == "id" || name == "build_id" || m_plan.layout.slot(name)) continue;
    auto names = *m_plan.layout.names;
    names.push_back("id");
    names.push_back("build_id");
    return error(m_spec.emit_where,
                 "[matrix.emit] fields names '" + name + "', which is not a field" + suggestion(name, names));
  }
  return std::move(m_plan);
}

}  // namespace

std::optional<std::uint32_t> Layout::slot(std::string_view name) const {
  auto it = index.find(std::string(name));
  if (it == index.end()) return std::nullopt;
  return it->second;
}

Result<Plan> compile_plan(const MatrixSpec& spec) {
  return Compiler(spec).run();
}

}  // namespace relforge::matrix
