#include "matrix/expand.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>

#include "core/channel_name.hpp"
#include "matrix/plan.hpp"

namespace relforge::matrix {
namespace {

constexpr std::uint32_t k_no_value = std::numeric_limits<std::uint32_t>::max();

// Tests on axes and on the original attributes depend only on the axis value, so they are
// evaluated once per value here instead of once per cell.
struct PreparedTest {
  const SlotTest* test = nullptr;
  std::vector<char> by_value;
};

struct PreparedRule {
  const CompiledRule* rule = nullptr;
  bool active = false;  // on this channel (its `channels` list and `channel` key)
  std::vector<PreparedTest> tests;
  // The `any` groups that can match on this channel; with `has_any`, one of them must.
  bool has_any = false;
  std::vector<std::vector<PreparedTest>> any;
};

// Per axis value: the attribute slots it fills, their text and type.
struct AttributeSlot {
  std::uint32_t slot = 0;
  const std::string* text = nullptr;
  ValueType type = ValueType::string;
};

class Expander {
public:
  Expander(const MatrixSpec& spec, const Plan& plan, std::string_view channel)
      : m_spec(spec), m_plan(plan), m_layout(plan.layout), m_channel(channel) {}
  Result<Expansion> run();

private:
  PreparedRule prepare(const CompiledRule& rule) const;
  // False when a channel test fails: the tests can never match on this channel.
  bool prepare_tests(const std::vector<SlotTest>& tests, std::vector<PreparedTest>& out) const;
  bool combo_matches(const PreparedRule& rule, const std::uint32_t* combo) const;
  bool when_matches(const PreparedRule& rule, const std::uint32_t* combo) const;
  bool value_matches(const PreparedTest& test, const std::uint32_t* combo) const;
  Status enumerate(Expansion& expansion);
  Result<std::uint64_t> cell_estimate(const std::vector<std::vector<std::uint32_t>>& active) const;
  // Fails when `size` bytes would make a value larger than k_max_value_bytes.
  Status check_value(std::size_t size, std::string_view what, Location where, const Rule* origin) const;
  void fill_values(const std::uint32_t* combo);
  void assign(const PreparedRule& rule);
  // Derives the fields and ids of the cell in m_values and appends it, packed, to the expansion.
  Status finish_cell(const std::uint32_t* combo, const Rule* origin, Expansion& expansion);
  Result<bool> new_combination(const PreparedRule& rule, std::vector<std::uint32_t>& combo);
  Status check_ids(const Expansion& expansion) const;
  std::string describe_values(const std::vector<std::string>& values, const Rule* origin) const;
  std::string describe(const Expansion& expansion, std::size_t cell) const;

  const MatrixSpec& m_spec;
  const Plan& m_plan;
  const Layout& m_layout;
  std::string m_channel;
  std::vector<std::uint32_t> m_combos;  // axis_count value indices per original combination
  // Per axis, per value: the attribute slots it fills and their text.
  std::vector<std::vector<std::vector<AttributeSlot>>> m_attributes;
  std::vector<PreparedRule> m_whens;  // per compiled field (inactive when it has no `when`)
  std::vector<const Rule*> m_origin;  // per new combination: the include that made it
  std::size_t m_originals = 0;
  // The cell being built; reused so that a cell allocates nothing until it is packed.
  std::vector<std::string> m_values;
  ValueTypes m_types;  // one per value of m_values
  std::string m_id, m_build_id, m_scratch;
  std::uint64_t m_bytes = 0;  // what the cells built so far take
};

std::string mib(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 19)) >> 20) + " MiB";
}

PreparedRule Expander::prepare(const CompiledRule& rule) const {
  PreparedRule prepared;
  prepared.rule = &rule;
  prepared.active = rule.rule->on_channel(m_channel) && prepare_tests(rule.tests, prepared.tests);
  prepared.has_any = !rule.any.empty();
  for (const auto& group : rule.any) {
    std::vector<PreparedTest> tests;
    if (prepare_tests(group, tests)) prepared.any.push_back(std::move(tests));
  }
  if (prepared.has_any && prepared.any.empty()) prepared.active = false;
  return prepared;
}

bool Expander::prepare_tests(const std::vector<SlotTest>& tests, std::vector<PreparedTest>& out) const {
  bool possible = true;
  for (const auto& test : tests) {
    PreparedTest entry;
    entry.test = &test;
    if (test.target == SlotTest::Target::channel) {
      possible = possible && test.matcher.matches_text(m_channel);
      continue;
    }
    if (test.target == SlotTest::Target::axis || test.target == SlotTest::Target::attribute) {
      const Axis& axis = m_spec.axes[test.axis];
      const std::string attribute = test.target == SlotTest::Target::attribute
                                        ? (*m_layout.names)[test.slot].substr(axis.name.size() + 1)
                                        : std::string();
      for (const auto& value : axis.values) {
        bool hit = false;
        if (test.target == SlotTest::Target::axis) {
          hit = test.matcher.matches(value.value, value.version ? &*value.version : nullptr, value.type);
        } else {
          const std::string* text = value.attribute(attribute);
          hit = test.matcher.matches_text(text != nullptr ? *text : std::string(),
                                          value.attribute_type(attribute));
        }
        entry.by_value.push_back(hit ? 1 : 0);
      }
    }
    out.push_back(std::move(entry));
  }
  return possible;
}

bool Expander::combo_matches(const PreparedRule& rule, const std::uint32_t* combo) const {
  const auto all = [&](const std::vector<PreparedTest>& tests) {
    for (const auto& test : tests) {
      const std::uint32_t index = combo[test.test->axis];
      if (index == k_no_value || !test.by_value[index]) return false;
    }
    return true;
  };
  if (!all(rule.tests)) return false;
  return !rule.has_any || std::any_of(rule.any.begin(), rule.any.end(), all);
}

bool Expander::value_matches(const PreparedTest& test, const std::uint32_t* combo) const {
  const SlotTest& slot_test = *test.test;
  const std::string& text = m_values[slot_test.slot];
  const ValueType type = m_types[slot_test.slot];
  if (slot_test.target == SlotTest::Target::axis) {
    const std::uint32_t index = combo[slot_test.axis];
    if (index != k_no_value) return test.by_value[index] != 0;
    // A value an include made up: its version comes from the text as for a defined value.
    const Leading leading =
        m_spec.axes[slot_test.axis].kind == AxisKind::version ? Leading::allowed : Leading::not_allowed;
    const auto version = version_of(text, leading);
    return slot_test.matcher.matches(text, version ? &*version : nullptr, type);
  }
  // Attributes may have been overwritten by an include, so they are tested as they are now.
  return slot_test.matcher.matches_text(text, type);
}

bool Expander::when_matches(const PreparedRule& rule, const std::uint32_t* combo) const {
  if (!rule.active) return false;
  const auto all = [&](const std::vector<PreparedTest>& tests) {
    return std::all_of(tests.begin(), tests.end(),
                       [&](const PreparedTest& test) { return value_matches(test, combo); });
  };
  if (!all(rule.tests)) return false;
  return !rule.has_any || std::any_of(rule.any.begin(), rule.any.end(), all);
}

void Expander::fill_values(const std::uint32_t* combo) {
  m_values.resize(m_layout.size());
  for (auto& value : m_values) value.clear();  // keeps each string's capacity for the next cell
  m_types.assign(m_layout.size(), ValueType::string);
  for (std::uint32_t a = 0; a < m_layout.axis_count; ++a) {
    if (combo[a] == k_no_value) continue;
    const AxisValue& value = m_spec.axes[a].values[combo[a]];
    m_values[a].assign(value.value);
    m_types[a] = value.type;
    for (const auto& attribute : m_attributes[a][combo[a]]) {
      m_values[attribute.slot].assign(*attribute.text);
      m_types[attribute.slot] = attribute.type;
    }
  }
  m_values[m_layout.channel_slot].assign(m_channel);
}

void Expander::assign(const PreparedRule& rule) {
  for (const auto& assignment : rule.rule->assignments) {
    m_values[assignment.slot].assign(assignment.value);
    m_types[assignment.slot] = assignment.type;
  }
}

// Bytes one cell costs: the Cell, one offset per piece and one type byte per value, the combination's
// indices, and the text, from the mean length of each axis value and attribute, the derived fields rendered
// from those sizes, and the id and build id. A field that would outgrow k_max_value_bytes fails here.
Result<std::uint64_t> Expander::cell_estimate(const std::vector<std::vector<std::uint32_t>>& active) const {
  std::vector<std::uint64_t> sizes(m_layout.size(), 0);
  for (std::uint32_t a = 0; a < m_layout.axis_count; ++a) {
    if (active[a].empty()) continue;
    const Axis& axis = m_spec.axes[a];
    for (const std::uint32_t v : active[a]) {
      sizes[a] += axis.values[v].value.size();
      for (const auto& attribute : axis.values[v].attributes) {
        const auto j = std::find(axis.attributes.begin(), axis.attributes.end(), attribute.name) -
                       axis.attributes.begin();
        sizes[m_layout.attribute_begin[a] + static_cast<std::uint32_t>(j)] += attribute.value.size();
      }
    }
    sizes[a] /= active[a].size();
    for (std::size_t j = 0; j < axis.attributes.size(); ++j)
      sizes[m_layout.attribute_begin[a] + j] /= active[a].size();
  }
  sizes[m_layout.channel_slot] = m_channel.size();
  for (const auto& field : m_plan.fields) {
    const std::uint64_t size = field.text.size_bound(sizes);
    if (size > k_max_value_bytes) {
      return fail_at(m_spec.file, field.source->template_where,
                     "the field '" + field.source->name + "' would be about " + std::to_string(size) +
                         " bytes a cell, more than the " + std::to_string(k_max_value_bytes / 1024) +
                         " KiB a value may hold: does it repeat itself through its overrides "
                         "(\"{f}{f}\" doubles f each time)?");
    }
    sizes[field.slot] = field.when ? std::max(sizes[field.slot], size) : size;
  }
  std::uint64_t text = 0;
  for (const auto size : sizes) text += size;
  std::uint64_t id = m_plan.id ? m_plan.id->size_bound(sizes) : 0;
  if (!m_plan.id)
    for (std::uint32_t a = 0; a < m_layout.axis_count; ++a) id += sizes[a] + 1;
  const std::uint64_t build_id = m_plan.build_id ? m_plan.build_id->size_bound(sizes, id) : 0;
  // Per value: its end offset (4 bytes) and its type (1 byte).
  return sizeof(Cell) + 5 * m_layout.size() + 12 + 4 * m_layout.axis_count + text + id + build_id;
}

Status Expander::check_value(std::size_t size, std::string_view what, Location where,
                             const Rule* origin) const {
  if (size <= k_max_value_bytes) return {};
  std::string cell = describe_values(m_values, origin);
  if (cell.size() > 200) cell = cell.substr(0, 200) + "...";
  return fail_at(m_spec.file, where,
                 std::string(what) + " would be " + std::to_string(size) + " bytes on the cell " + cell +
                     ", more than the " + std::to_string(k_max_value_bytes / 1024) +
                     " KiB a value may hold: does a field repeat itself through its overrides "
                     "(\"{f}{f}\" doubles f each time)?");
}

Status Expander::enumerate(Expansion& expansion) {
  const std::size_t axis_count = m_layout.axis_count;
  // Dimensions of the product, outermost first: an axis, or a zip group where its first axis is.
  std::vector<std::vector<std::uint32_t>> dimensions;
  std::vector<std::vector<std::uint32_t>> active(axis_count);
  for (std::uint32_t a = 0; a < axis_count; ++a) {
    const auto& values = m_spec.axes[a].values;
    for (std::uint32_t v = 0; v < values.size(); ++v) {
      if (values[v].on_channel(m_channel)) active[a].push_back(v);
    }
  }
  for (std::uint32_t a = 0; a < axis_count; ++a) {
    const std::string& name = m_spec.axes[a].name;
    const ZipGroup* group = nullptr;
    for (const auto& zip : m_spec.zips) {
      if (std::find(zip.axes.begin(), zip.axes.end(), name) != zip.axes.end()) group = &zip;
    }
    if (group == nullptr) {
      dimensions.push_back({a});
    } else if (group->axes.front() == name) {
      std::vector<std::uint32_t> members;
      for (const auto& member : group->axes) {
        for (std::uint32_t b = 0; b < axis_count; ++b) {
          if (m_spec.axes[b].name == member) members.push_back(b);
        }
      }
      dimensions.push_back(std::move(members));
    }
  }
  std::size_t total = 1;
  std::vector<std::size_t> lengths;
  for (const auto& dimension : dimensions) {
    lengths.push_back(active[dimension.front()].size());
    total = lengths.back() == 0 ? 0 : (total > k_max_combinations ? total : total * lengths.back());
  }
  expansion.combinations = total;
  if (total == 0 || total > k_max_combinations) return {};
  // Refused before anything is built: the combinations alone take axis_count words each.
  const auto estimated = cell_estimate(active);
  if (!estimated) return tl::unexpected(estimated.error());
  const std::uint64_t per_cell = *estimated;
  const std::uint64_t estimate = per_cell > UINT64_MAX / total ? UINT64_MAX : total * per_cell;
  if (estimate > k_max_matrix_bytes) {
    return fail(ErrorCategory::invalid_input,
                m_spec.file + ": the matrix on channel '" + m_channel + "' would take about " +
                    mib(estimate) + " (" + std::to_string(total) + " combinations × " +
                    std::to_string(m_layout.size()) + " fields, about " + std::to_string(per_cell) +
                    " bytes a cell), more than the " + mib(k_max_matrix_bytes) +
                    " relforge builds a matrix in: zip or restrict axes, or split it across channels");
  }

  std::vector<PreparedRule> excludes, onlys;
  for (const auto& rule : m_plan.excludes) {
    auto prepared = prepare(rule);
    if (prepared.active) excludes.push_back(std::move(prepared));
  }
  // The only rules active on this channel form its allow-list; with none, every combination may stay.
  for (const auto& rule : m_plan.onlys) {
    auto prepared = prepare(rule);
    if (prepared.active) onlys.push_back(std::move(prepared));
  }
  m_combos.reserve(total * axis_count);
  std::vector<std::size_t> position(dimensions.size(), 0);
  std::vector<std::uint32_t> combo(axis_count);
  for (std::size_t k = 0; k < total; ++k) {
    for (std::size_t d = 0; d < dimensions.size(); ++d) {
      for (const std::uint32_t a : dimensions[d]) combo[a] = active[a][position[d]];
    }
    const auto matches = [&](const PreparedRule& rule) { return combo_matches(rule, combo.data()); };
    const bool excluded = (!onlys.empty() && std::none_of(onlys.begin(), onlys.end(), matches)) ||
                          std::any_of(excludes.begin(), excludes.end(), matches);
    if (excluded) {
      ++expansion.excluded;
    } else {
      m_combos.insert(m_combos.end(), combo.begin(), combo.end());
    }
    for (std::size_t d = dimensions.size(); d-- > 0;) {
      if (++position[d] < lengths[d]) break;
      position[d] = 0;
    }
  }
  return {};
}

Result<bool> Expander::new_combination(const PreparedRule& rule, std::vector<std::uint32_t>& combo) {
  // GitHub Actions: an include that fits no combination becomes a combination of its own.
  const Rule& source = *rule.rule->rule;
  combo.assign(m_layout.axis_count, k_no_value);
  // `any` groups name alternatives, not values: such an include makes no new combination.
  if (rule.has_any) return false;
  std::vector<std::tuple<std::uint32_t, std::string, ValueType>> literals;
  for (const auto& test : rule.tests) {
    const std::string* literal = test.test->matcher.literal();
    // A pattern cannot name a new value: such an include just does not apply on this channel
    // (compile_plan has already rejected patterns that match no value on any channel).
    if (literal == nullptr) return false;
    const auto& values = m_spec.axes[test.test->axis].values;
    bool defined = false;
    for (std::uint32_t v = 0; v < values.size(); ++v) {
      if (values[v].value != *literal) continue;
      // A value that does not exist on this channel keeps the include off this channel.
      if (!values[v].on_channel(m_channel)) return false;
      combo[test.test->axis] = v;
      defined = true;
    }
    if (!defined) literals.emplace_back(test.test->axis, *literal, test.test->matcher.literal_type());
  }
  if (rule.tests.empty()) {
    return fail_at(m_spec.file, source.where,
                   "[[matrix.include]] matches no cell on channel '" + m_channel +
                       "' and names no axis value to make a new one from");
  }
  fill_values(combo.data());
  for (const auto& [axis, literal, type] : literals) {
    m_values[axis].assign(literal);
    m_types[axis] = type;
  }
  assign(rule);
  return true;
}

Status Expander::finish_cell(const std::uint32_t* combo, const Rule* origin, Expansion& expansion) {
  for (std::size_t f = 0; f < m_plan.fields.size(); ++f) {
    const CompiledField& field = m_plan.fields[f];
    if (field.when && !when_matches(m_whens[f], combo)) continue;
    const auto size = field.text.size_bound(m_values);
    if (auto ok =
            check_value(size, "the field '" + field.source->name + "'", field.source->template_where, origin);
        !ok)
      return ok;
    // Rendered aside first: an override may read the value it replaces.
    m_scratch.clear();
    field.text.render_to(m_scratch, m_values);
    m_values[field.slot].swap(m_scratch);
    m_types[field.slot] = ValueType::string;  // a template renders text
  }
  m_id.clear();
  if (m_plan.id) {
    if (auto ok = check_value(m_plan.id->size_bound(m_values), "the id", m_spec.id_where, origin); !ok)
      return ok;
    m_plan.id->render_to(m_id, m_values);
  } else {
    for (std::uint32_t a = 0; a < m_layout.axis_count; ++a) {
      if (m_values[a].empty()) continue;
      if (!m_id.empty()) m_id += '-';
      m_id += m_values[a];
    }
  }
  if (m_id.empty()) {
    return fail_at(m_spec.file, m_spec.id_where,
                   "the cell " + describe_values(m_values, origin) + " has an empty id");
  }
  m_build_id.clear();
  if (m_plan.build_id) {
    if (auto ok = check_value(m_plan.build_id->size_bound(m_values, m_id), "the build id",
                              m_spec.build_id_where, origin);
        !ok)
      return ok;
    m_plan.build_id->render_to(m_build_id, m_values, m_id);
  }
  // The estimate assumed typical values; the cells as built are counted too.
  m_bytes += sizeof(Cell) + 5 * m_values.size() + 12 + m_id.size() + m_build_id.size();
  for (const auto& value : m_values) m_bytes += value.size();
  if (m_bytes > k_max_matrix_bytes) {
    return fail(
        ErrorCategory::invalid_input,
        m_spec.file + ": the matrix on channel '" + m_channel + "' takes more than " +
            mib(k_max_matrix_bytes) + " after " + std::to_string(expansion.cells.size()) + " of " +
            std::to_string(expansion.combinations) +
            " cells: its values are long (see the derived fields); shorten them, or zip or restrict axes");
  }
  expansion.cells.emplace_back(m_layout.names, m_id, m_plan.build_id ? m_build_id : m_id, m_values, &m_types);
  return {};
}

std::string Expander::describe_values(const std::vector<std::string>& values, const Rule* origin) const {
  std::string out;
  for (std::uint32_t a = 0; a < m_layout.axis_count; ++a) {
    if (a > 0) out += ' ';
    out += m_spec.axes[a].name + "=" + values[a];
  }
  if (origin != nullptr)
    out += " (new combination from [[matrix.include]] at line " + std::to_string(origin->where.line) + ")";
  return out;
}

std::string Expander::describe(const Expansion& expansion, std::size_t cell) const {
  return describe_values(expansion.cells[cell].values(),
                         cell >= m_originals ? m_origin[cell - m_originals] : nullptr);
}

Status Expander::check_ids(const Expansion& expansion) const {
  // Sorted hashes instead of a hash map: no allocation per cell.
  const auto& cells = expansion.cells;
  std::vector<std::pair<std::size_t, std::uint32_t>> keys(cells.size());
  for (std::uint32_t c = 0; c < cells.size(); ++c)
    keys[c] = {std::hash<std::string_view>{}(cells[c].id()), c};
  std::sort(keys.begin(), keys.end());
  std::optional<std::pair<std::uint32_t, std::uint32_t>> first_duplicate;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i + 1; j < keys.size() && keys[j].first == keys[i].first; ++j) {
      if (cells[keys[i].second].id() != cells[keys[j].second].id()) continue;
      // Report the pair whose later cell comes first, so the message does not depend on hashing.
      const auto pair = std::minmax(keys[i].second, keys[j].second);
      if (!first_duplicate || pair.second < first_duplicate->second ||
          (pair.second == first_duplicate->second && pair.first < first_duplicate->first)) {
        first_duplicate = pair;
      }
    }
  }
  if (!first_duplicate) return {};
  const auto [a, b] = *first_duplicate;
  const std::string fix = m_plan.id ? "make [matrix] id include what tells them apart"
                                    : "give them different axis values or remove one";
  return fail_at(m_spec.file, m_spec.id_where,
                 "duplicate cell id '" + std::string(cells[a].id()) + "' on channel '" + m_channel +
                     "': produced by " + describe(expansion, a) + " and by " + describe(expansion, b) + "; " +
                     fix);
}

Result<Expansion> Expander::run() {
  Expansion expansion;
  expansion.channel = m_channel;
  expansion.names = m_layout.names;
  expansion.axis_count = m_layout.axis_count;
  if (auto ok = enumerate(expansion); !ok) return tl::unexpected(ok.error());
  if (expansion.combinations > k_max_combinations) {
    return fail(ErrorCategory::invalid_input,
                m_spec.file + ": the axes multiply to more than " + std::to_string(k_max_combinations) +
                    " combinations on channel '" + m_channel + "'; zip or restrict axes");
  }
  const std::size_t axis_count = m_layout.axis_count;
  m_attributes.resize(axis_count);
  for (std::uint32_t a = 0; a < axis_count; ++a) {
    const Axis& axis = m_spec.axes[a];
    for (const auto& value : axis.values) {
      auto& slots = m_attributes[a].emplace_back();
      for (const auto& attribute : value.attributes) {
        const auto j = std::find(axis.attributes.begin(), axis.attributes.end(), attribute.name) -
                       axis.attributes.begin();
        slots.push_back(AttributeSlot{m_layout.attribute_begin[a] + static_cast<std::uint32_t>(j),
                                      &attribute.value, attribute.type});
      }
    }
  }
  std::vector<PreparedRule> includes;
  for (const auto& rule : m_plan.includes) {
    auto prepared = prepare(rule);
    if (prepared.active) includes.push_back(std::move(prepared));
  }
  m_whens.resize(m_plan.fields.size());
  for (std::size_t f = 0; f < m_plan.fields.size(); ++f) {
    if (m_plan.fields[f].when) m_whens[f] = prepare(*m_plan.fields[f].when);
  }
  m_originals = axis_count == 0 ? 0 : m_combos.size() / axis_count;
  expansion.cells.reserve(m_originals + includes.size());
  std::vector<char> matched(includes.size(), 0);
  for (std::size_t c = 0; c < m_originals; ++c) {
    const std::uint32_t* combo = m_combos.data() + c * axis_count;
    fill_values(combo);
    for (std::size_t r = 0; r < includes.size(); ++r) {
      if (!combo_matches(includes[r], combo)) continue;
      matched[r] = 1;
      assign(includes[r]);
    }
    if (auto ok = finish_cell(combo, nullptr, expansion); !ok) return tl::unexpected(ok.error());
  }
  std::vector<std::uint32_t> combo;
  for (std::size_t r = 0; r < includes.size(); ++r) {
    if (matched[r]) continue;
    auto made = new_combination(includes[r], combo);
    if (!made) return tl::unexpected(made.error());
    if (!*made) continue;
    const Rule* origin = includes[r].rule->rule;
    m_origin.push_back(origin);
    ++expansion.included;
    if (auto ok = finish_cell(combo.data(), origin, expansion); !ok) return tl::unexpected(ok.error());
  }
  if (expansion.cells.empty()) {
    return fail(ErrorCategory::nothing_selected,
                "the matrix in " + m_spec.file + " has no cells on channel '" + m_channel + "' (" +
                    std::to_string(expansion.combinations) + " combinations, " +
                    std::to_string(expansion.excluded) + " excluded)");
  }
  if (auto ok = check_ids(expansion); !ok) return tl::unexpected(ok.error());
  return expansion;
}

}  // namespace

Result<Expansion> expand(const MatrixSpec& spec, std::string_view channel) {
  if (auto ok = spec.check_channel(channel); !ok) return tl::unexpected(ok.error());
  auto plan = compile_plan(spec);
  if (!plan) return tl::unexpected(plan.error());
  // Cells carry the config's own spelling of the channel ("release" or "stable" for the stable one).
  for (const auto& name : spec.channels) {
    if (core::same_channel(name, channel)) return Expander(spec, *plan, name).run();
  }
  return Expander(spec, *plan, channel).run();
}

}  // namespace relforge::matrix
