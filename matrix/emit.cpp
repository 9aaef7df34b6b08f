#include "matrix/emit.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <ostream>

namespace relforge::matrix {
namespace {

// The slot of each requested field; id and build_id are the two slots past the last field.
std::vector<std::size_t> field_slots(const Expansion& expansion, const std::vector<std::string>& fields) {
  const auto& names = *expansion.names;
  std::vector<std::size_t> slots;
  if (fields.empty()) {
    slots.push_back(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) slots.push_back(i);
    return slots;
  }
  for (const auto& field : fields) {
    if (field == "id") {
      slots.push_back(names.size());
    } else if (field == "build_id") {
      slots.push_back(names.size() + 1);
    } else {
      // Names were checked when the config was compiled.
      slots.push_back(static_cast<std::size_t>(std::find(names.begin(), names.end(), field) - names.begin()));
    }
  }
  return slots;
}

std::string_view slot_value(const Cell& cell, std::size_t slot) {
  if (slot == cell.size()) return cell.id();
  if (slot == cell.size() + 1) return cell.build_id();
  return cell.value(slot);
}

ValueType slot_type(const Cell& cell, std::size_t slot) {
  return slot < cell.size() ? cell.type(slot) : ValueType::string;
}

const std::string& slot_name(const Expansion& expansion, std::size_t slot) {
  static const std::string k_id = "id", k_build_id = "build_id";
  if (slot == expansion.names->size()) return k_id;
  if (slot == expansion.names->size() + 1) return k_build_id;
  return (*expansion.names)[slot];
}

// `"name":` for each slot, escaped once rather than once per cell.
std::vector<std::string> json_keys(const Expansion& expansion, const std::vector<std::size_t>& slots) {
  std::vector<std::string> keys;
  for (const std::size_t slot : slots) {
    std::string key;
    append_json_string(key, slot_name(expansion, slot));
    keys.push_back(key + ':');
  }
  return keys;
}

void append_object(std::string& out, const Cell& cell, const std::vector<std::size_t>& slots,
                   const std::vector<std::string>& keys) {
  out += '{';
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) out += ',';
    out += keys[i];
    append_json_value(out, slot_value(cell, slots[i]), slot_type(cell, slots[i]));
  }
  out += '}';
}

// Output is gathered in blocks of this size before it goes to the stream.
constexpr std::size_t k_flush_size = 1 << 16;

}  // namespace

void append_json_value(std::string& out, std::string_view text, ValueType type) {
  // Booleans and integers hold their canonical TOML text, which is valid JSON as it is.
  if (type == ValueType::string) {
    append_json_string(out, text);
  } else {
    out += text;
  }
}

Result<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::table;
  if (name == "json") return Format::json;
  if (name == "github") return Format::github;
  if (name == "ids") return Format::ids;
  return fail(ErrorCategory::invalid_input,
              "unknown format '" + std::string(name) + "'; expected table, json, github or ids");
}

void emit_table(std::ostream& out, const Expansion& expansion, const std::vector<std::string>& fields) {
  const auto& names = *expansion.names;
  std::vector<std::size_t> slots;
  std::size_t hidden_attributes = 0;
  if (!fields.empty()) {
    slots = field_slots(expansion, fields);
  } else {
    const bool build_ids_differ = std::any_of(expansion.cells.begin(), expansion.cells.end(),
                                              [](const Cell& cell) { return cell.build_id() != cell.id(); });
    slots.push_back(names.size());
    if (build_ids_differ) slots.push_back(names.size() + 1);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "channel") continue;  // the last line names the channel
      // Attributes feed the derived fields; a table of every one is too wide to read.
      if (names[i].find('.') != std::string::npos) {
        ++hidden_attributes;
        continue;
      }
      slots.push_back(i);
    }
  }
  std::vector<std::size_t> widths;
  for (const std::size_t slot : slots) {
    std::size_t width = std::max<std::size_t>(slot_name(expansion, slot).size(), 1);
    for (const auto& cell : expansion.cells) width = std::max(width, slot_value(cell, slot).size());
    widths.push_back(width);
  }
  std::string line;
  const auto add_row = [&](const auto& text_of) {
    line.clear();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const std::string_view text = text_of(slots[i]);
      const std::string_view shown = text.empty() ? std::string_view("-") : std::string_view(text);
      line += shown;
      if (i + 1 < slots.size()) line.append(widths[i] - shown.size() + 2, ' ');
    }
    line += '\n';
    out << line;
  };
  add_row([&](std::size_t slot) -> std::string_view { return slot_name(expansion, slot); });
  for (const auto& cell : expansion.cells) {
    add_row([&](std::size_t slot) { return slot_value(cell, slot); });
  }
  out << expansion.cells.size() << (expansion.cells.size() == 1 ? " cell" : " cells") << " (channel "
      << expansion.channel;
  if (hidden_attributes > 0) {
    out << "; " << hidden_attributes << " attribute column" << (hidden_attributes == 1 ? "" : "s")
        << " not shown: --fields or --format json";
  }
  out << ")\n";
}

Status check_fields(const Expansion& expansion, const std::vector<std::string>& fields) {
  std::vector<std::string> known{"id", "build_id"};
  known.insert(known.end(), expansion.names->begin(), expansion.names->end());
  return check_fields(known, fields);
}

Status check_fields(const std::vector<std::string>& known, const std::vector<std::string>& fields) {
  for (const auto& field : fields) {
    if (std::find(known.begin(), known.end(), field) != known.end()) continue;
    std::string message = "unknown field '" + field + "' in --fields";
    if (auto suggestion = core::closest_match(field, known))
      message += "; did you mean '" + *suggestion + "'?";
    message += " (fields: " + core::join(known, ", ") + ")";
    return fail(ErrorCategory::invalid_input, message);
  }
  return {};
}

void emit_json(std::ostream& out, const Expansion& expansion) {
  std::vector<std::size_t> slots{expansion.names->size(), expansion.names->size() + 1};
  for (std::size_t i = 0; i < expansion.names->size(); ++i) slots.push_back(i);
  const auto keys = json_keys(expansion, slots);
  std::string buffer = "[";
  for (std::size_t c = 0; c < expansion.cells.size(); ++c) {
    if (c > 0) buffer += ',';
    buffer += "\n  ";
    append_object(buffer, expansion.cells[c], slots, keys);
    if (buffer.size() > k_flush_size) {
      out << buffer;
      buffer.clear();
    }
  }
  buffer += expansion.cells.empty() ? "]\n" : "\n]\n";
  out << buffer;
}

void emit_ids(std::ostream& out, const Expansion& expansion) {
  std::string buffer;
  for (const auto& cell : expansion.cells) {
    buffer += cell.id();
    buffer += '\n';
    if (buffer.size() > k_flush_size) {
      out << buffer;
      buffer.clear();
    }
  }
  out << buffer;
}

namespace {

// Calls `emit(document)` for each shard's {"include":[...]}, reusing one buffer.
template <typename Emit>
void for_each_github_document(const Expansion& expansion, const std::vector<std::string>& fields,
                              std::size_t shard_size, Emit&& emit) {
  const auto slots = field_slots(expansion, fields);
  const auto keys = json_keys(expansion, slots);
  const std::size_t size = std::max<std::size_t>(shard_size, 1);
  std::string document;
  for (std::size_t begin = 0; begin < expansion.cells.size(); begin += size) {
    const std::size_t end = std::min(expansion.cells.size(), begin + size);
    document.assign("{\"include\":[");
    for (std::size_t c = begin; c < end; ++c) {
      if (c > begin) document += ',';
      append_object(document, expansion.cells[c], slots, keys);
    }
    document += "]}";
    emit(document);
  }
}

}  // namespace

std::vector<std::string> github_matrices(const Expansion& expansion, const std::vector<std::string>& fields,
                                         std::size_t shard_size) {
  std::vector<std::string> documents;
  for_each_github_document(expansion, fields, shard_size,
                           [&](const std::string& document) { documents.push_back(document); });
  return documents;
}

void emit_github(std::ostream& out, const Expansion& expansion, const std::vector<std::string>& fields,
                 std::size_t shard_size) {
  for_each_github_document(expansion, fields, shard_size, [&](std::string& document) {
    document += '\n';
    out << document;
  });
}

std::size_t github_shard_count(const Expansion& expansion, std::size_t shard_size) {
  const std::size_t size = std::max<std::size_t>(shard_size, 1);
  return (expansion.cells.size() + size - 1) / size;
}

std::string github_output_lines(const std::vector<std::string>& matrices) {
  if (matrices.size() == 1) return "matrix=" + matrices.front() + "\n";
  std::string out;
  std::string shards = "[";
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    out += "matrix-" + std::to_string(i) + "=" + matrices[i] + "\n";
    if (i > 0) shards += ',';
    shards += std::to_string(i);
  }
  out += "shard-count=" + std::to_string(matrices.size()) + "\n";
  out += "shards=" + shards + "]\n";
  return out;
}

}  // namespace relforge::matrix
