#pragma once
// A MatrixSpec compiled against its field layout: rule keys resolved to slots, templates bound.
// Compiling is also where every name in a rule, template or emit list is checked.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "matrix/cell.hpp"
#include "matrix/config.hpp"
#include "matrix/template.hpp"

namespace relforge::matrix {

// The slots of a cell: axes, then `axis.attr`, then include keys, then derived fields, then channel.
struct Layout {
  std::shared_ptr<const FieldNames> names;
  std::uint32_t axis_count = 0;
  std::vector<std::uint32_t> attribute_begin;  // per axis: the slot of its first attribute
  std::uint32_t include_begin = 0;
  std::uint32_t field_begin = 0;
  std::uint32_t channel_slot = 0;
  std::unordered_map<std::string, std::uint32_t> index;

  std::optional<std::uint32_t> slot(std::string_view name) const;
  std::size_t size() const { return names->size(); }
};

// One `key = matcher` test of a rule, resolved.
struct SlotTest {
  enum class Target { axis, attribute, channel, field };
  Target target = Target::field;
  std::uint32_t axis = 0;  // axis and attribute tests: the axis
  std::uint32_t slot = 0;  // the slot whose value is tested
  Matcher matcher;
};

struct CompiledAssignment {
  std::uint32_t slot = 0;
  std::string value;
  ValueType type = ValueType::string;
};

struct CompiledRule {
  const Rule* rule = nullptr;
  std::vector<SlotTest> tests;
  std::vector<std::vector<SlotTest>> any;       // the rule's `any` groups, resolved
  std::vector<CompiledAssignment> assignments;  // include only
};

struct CompiledField {
  const DerivedField* source = nullptr;
  std::uint32_t slot = 0;
  Template text;
  std::optional<CompiledRule> when;
};

struct Plan {
  Layout layout;
  std::vector<CompiledRule> excludes;
  std::vector<CompiledRule> onlys;
  std::vector<CompiledRule> includes;
  std::vector<CompiledField> fields;
  std::optional<Template> id;  // nullopt: the axis values joined with "-"
  std::optional<Template> build_id;
};

// Fails with file:line:col and a suggestion on any name the config uses but does not define.
// The plan points into `spec`, which must outlive it.
Result<Plan> compile_plan(const MatrixSpec& spec);

}  // namespace relforge::matrix
