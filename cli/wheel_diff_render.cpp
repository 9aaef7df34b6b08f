#include "cli/wheel_diff_render.hpp"

#include "core/text.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;

const char* change_name(packaging::EntryChange change) {
  switch (change) {
    case packaging::EntryChange::added:
      return "added";
    case packaging::EntryChange::removed:
      return "removed";
    case packaging::EntryChange::changed:
      return "changed";
  }
  return "changed";
}

}  // namespace

Json wheel_diff_json(const packaging::WheelDiff& diff) {
  Json entries = Json::array();
  for (const auto& entry : diff.entries) {
    Json fields = Json::array();
    for (const auto& field : entry.fields)
      fields.push_back({{"field", field.field}, {"before", field.before}, {"after", field.after}});
    entries.push_back({{"name", entry.name},
                       {"change", change_name(entry.change)},
                       {"content_changed", entry.content_changed},
                       {"size_before", entry.size_before},
                       {"size_after", entry.size_after},
                       {"sha256_before", entry.sha256_before},
                       {"sha256_after", entry.sha256_after},
                       {"attributes", entry.attributes},
                       {"fields", fields},
                       {"elf_sections", entry.sections},
                       {"elf_symbols", entry.symbols},
                       {"lines", entry.lines},
                       {"more", entry.more}});
  }
  return {{"identical", diff.identical},
          {"entries", entries},
          {"order_changed", diff.order_changed},
          {"archive_only", diff.archive_only}};
}

void print_wheel_diff(std::ostream& out, const packaging::WheelDiff& diff) {
  if (diff.identical) {
    out << "identical\n";
    return;
  }
  for (const auto& entry : diff.entries) {
    const char mark = entry.change == packaging::EntryChange::added     ? '+'
                      : entry.change == packaging::EntryChange::removed ? '-'
                                                                        : '~';
    out << mark << ' ' << entry.name;
    if (entry.change == packaging::EntryChange::changed && entry.content_changed)
      out << " (" << entry.size_before << " -> " << entry.size_after << " bytes)";
    out << '\n';
    for (const auto& attribute : entry.attributes) out << "    " << attribute << '\n';
    for (const auto& field : entry.fields)
      out << "    field " << field.field << ": " << core::join(field.before, ", ") << " -> "
          << core::join(field.after, ", ") << '\n';
    for (const auto& section : entry.sections) out << "    section " << section << '\n';
    for (const auto& symbol : entry.symbols) out << "    symbol " << symbol << '\n';
    for (const auto& line : entry.lines) out << "    " << line << '\n';
    if (entry.more > 0) out << "    ... and " << entry.more << " more\n";
  }
  if (diff.order_changed) out << "entries are in another order\n";
  if (diff.archive_only)
    out << "same entries in the same order; the zip bytes differ (compression or zip fields)\n";
}

}  // namespace relforge::cli
