#include "packaging/wheel_diff.hpp"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "core/text.hpp"
#include "core/time.hpp"
#include "packaging/elf_handle.hpp"
#include "packaging/wheel_archive.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"

namespace relforge::packaging {
namespace {

constexpr std::size_t k_list_limit = 40;  // lines or symbols listed per entry

struct ElfView {
  std::map<std::string, std::string> sections;  // name -> bytes ("" for NOBITS), duplicates joined
  std::map<std::string, std::string> symbols;   // "name" -> "value size type", .symtab and .dynsym
};

// nullopt when the bytes are no ELF file libelf can read: the entry is then compared as bytes.
std::optional<ElfView> read_elf(std::string& bytes) {
  if (bytes.size() < 4 || bytes.compare(0, 4,
                                        "\x7f"
                                        "ELF") != 0)
    return std::nullopt;
  elf_version(EV_CURRENT);
  ElfHandle elf(elf_memory(bytes.data(), bytes.size()));
  std::size_t names = 0;
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF || elf_getshdrstrndx(elf.get(), &names) != 0)
    return std::nullopt;
  ElfView view;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn != nullptr; scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) return std::nullopt;
    const char* name = elf_strptr(elf.get(), names, shdr.sh_name);
    std::string content;
    if (shdr.sh_type != SHT_NOBITS) {
      if (shdr.sh_offset > bytes.size() || shdr.sh_size > bytes.size() - shdr.sh_offset) return std::nullopt;
      content = bytes.substr(shdr.sh_offset, shdr.sh_size);
    }
    view.sections[name != nullptr ? name : "?"] += content;
    if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || shdr.sh_entsize == 0) continue;
    for (std::size_t i = 1; i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) break;
      const char* symbol = elf_strptr(elf.get(), shdr.sh_link, sym.st_name);
      if (symbol == nullptr || *symbol == '\0') continue;
      view.symbols[symbol] = std::to_string(sym.st_value) + " " + std::to_string(sym.st_size) + " " +
                             std::to_string(GELF_ST_TYPE(sym.st_info));
    }
  }
  return view;
}

void push_limited(EntryDiff& entry, std::vector<std::string>& list, std::string line) {
  if (list.size() < k_list_limit)
    list.push_back(std::move(line));
  else
    ++entry.more;
}

// Printable runs of 6 or more bytes: an embedded path or version string is what usually makes two
// builds of one source differ, and it reads better than "section .rodata: content".
std::set<std::string> strings_of(std::string_view bytes) {
  std::set<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    const bool printable = i < bytes.size() && bytes[i] >= 0x20 && bytes[i] < 0x7f;
    if (printable) continue;
    if (i - start >= 6) out.emplace(bytes.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

void diff_strings(std::string_view a, std::string_view b, EntryDiff& entry) {
  const auto left = strings_of(a), right = strings_of(b);
  for (const auto& text : left)
    if (!right.contains(text)) push_limited(entry, entry.lines, "-" + text);
  for (const auto& text : right)
    if (!left.contains(text)) push_limited(entry, entry.lines, "+" + text);
}

void diff_elf(const ElfView& a, const ElfView& b, EntryDiff& entry) {
  for (const auto& [name, bytes] : a.sections) {
    const auto other = b.sections.find(name);
    if (other == b.sections.end())
      push_limited(entry, entry.sections, name + ": removed");
    else if (other->second.size() != bytes.size())
      push_limited(entry, entry.sections,
                   name + ": " + std::to_string(bytes.size()) + " -> " +
                       std::to_string(other->second.size()) + " bytes");
    else if (other->second != bytes)
      push_limited(entry, entry.sections, name + ": content");
    // Symbol names are listed below; strings of the data sections are listed here.
    if (other != b.sections.end() && other->second != bytes &&
        (name == ".rodata" || name == ".data" || name == ".comment"))
      diff_strings(bytes, other->second, entry);
  }
  for (const auto& [name, bytes] : b.sections)
    if (!a.sections.contains(name)) push_limited(entry, entry.sections, name + ": added");
  for (const auto& [name, value] : a.symbols) {
    const auto other = b.symbols.find(name);
    if (other == b.symbols.end())
      push_limited(entry, entry.symbols, "-" + name);
    else if (other->second != value)
      push_limited(entry, entry.symbols, "~" + name);
  }
  for (const auto& [name, value] : b.symbols)
    if (!a.symbols.contains(name)) push_limited(entry, entry.symbols, "+" + name);
}

// Binary formats other than ELF nearly always hold a NUL; text never does.
bool is_text(std::string_view bytes) {
  return bytes.find('\0') == std::string_view::npos;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (auto line : core::split(text, '\n')) out.push_back(line);
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// The lines between the common head and tail: linear, and exact for the usual one-region change.
void diff_lines(std::string_view a, std::string_view b, EntryDiff& entry) {
  const auto left = lines_of(a), right = lines_of(b);
  std::size_t head = 0;
  while (head < left.size() && head < right.size() && left[head] == right[head]) ++head;
  std::size_t tail = 0;
  while (tail < left.size() - head && tail < right.size() - head &&
         left[left.size() - 1 - tail] == right[right.size() - 1 - tail])
    ++tail;
  for (std::size_t i = head; i < left.size() - tail; ++i)
    push_limited(entry, entry.lines, "-" + std::string(left[i]));
  for (std::size_t i = head; i < right.size() - tail; ++i)
    push_limited(entry, entry.lines, "+" + std::string(right[i]));
}

// Header fields of METADATA / WHEEL (RFC 822 style, up to the first blank line); repeated fields
// (Tag, Classifier) keep every value.
std::map<std::string, std::vector<std::string>> header_fields(std::string_view text) {
  std::map<std::string, std::vector<std::string>> fields;
  for (auto line : lines_of(text)) {
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    fields[std::string(line.substr(0, colon))].emplace_back(core::trim(line.substr(colon + 1)));
  }
  return fields;
}

void diff_fields(std::string_view a, std::string_view b, EntryDiff& entry) {
  const auto left = header_fields(a), right = header_fields(b);
  std::set<std::string> keys;
  for (const auto& [key, values] : left) keys.insert(key);
  for (const auto& [key, values] : right) keys.insert(key);
  for (const auto& key : keys) {
    const auto l = left.find(key), r = right.find(key);
    auto before = l == left.end() ? std::vector<std::string>() : l->second;
    auto after = r == right.end() ? std::vector<std::string>() : r->second;
    if (before != after) entry.fields.push_back({key, std::move(before), std::move(after)});
  }
}

std::string mode_text(std::uint32_t attributes) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", (attributes >> 16) & 07777u);
  return text;
}

bool is_header_file(const std::string& name) {
  return name.ends_with(".dist-info/METADATA") || name.ends_with(".dist-info/WHEEL");
}

std::string top_folder(const std::string& name) {
  return name.substr(0, name.find('/'));
}

std::set<std::string> dist_info_folders(const ZipReader& reader) {
  std::set<std::string> folders;
  for (const auto& entry : reader.entries())
    if (const auto top = top_folder(entry.name); top.ends_with(".dist-info")) folders.insert(top);
  return folders;
}

// Entries are matched by name, but when each side has one dist-info folder the other lacks (a
// version change renamed it), those two are matched, with their `.data` folders, so a new
// version shows as changed METADATA rather than every such file added and removed. A dist-info
// folder added beside the old one is matched by its own name only, so its files show as added.
std::map<std::string, std::string> renamed_folders(const ZipReader& before, const ZipReader& after) {
  const auto a = dist_info_folders(before), b = dist_info_folders(after);
  std::vector<std::string> only_a, only_b;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_a));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_b));
  if (only_a.size() != 1 || only_b.size() != 1) return {};
  const auto stem = [](const std::string& folder) {
    return folder.substr(0, folder.size() - std::string_view(".dist-info").size());
  };
  return {{only_a[0], only_b[0]}, {stem(only_a[0]) + ".data", stem(only_b[0]) + ".data"}};
}

// The name an entry of the first wheel is matched by in the second.
std::string match_key(const std::string& name, const std::map<std::string, std::string>& renamed) {
  const auto found = renamed.find(top_folder(name));
  return found == renamed.end() ? name : found->second + name.substr(found->first.size());
}

// An entry is read whole for a detailed diff when its bytes justify the memory: up to 64 MiB, or
// up to 32 times what it occupies compressed (real libraries deflate 2-5x; a zip bomb 1000x).
constexpr std::uint64_t k_detail_ratio = 32;

std::uint64_t detail_limit(const ArchiveEntry& entry) {
  const std::uint64_t by_ratio = entry.compressed_size > UINT64_MAX / k_detail_ratio
                                     ? UINT64_MAX
                                     : entry.compressed_size * k_detail_ratio;
  return std::max(k_max_whole_entry, by_ratio);
}

bool fits_detail(const ArchiveEntry& entry) {
  return entry.size <= detail_limit(entry);
}

// Hex sha256 and size, streamed: what is compared of an entry too large to read whole.
Result<std::pair<std::string, std::uint64_t>> streamed_digest(const ZipReader& reader,
                                                              const ArchiveEntry& entry) {
  auto digest = reader.digest(entry);
  if (!digest) return tl::unexpected(digest.error());
  return std::make_pair(platform::to_hex(digest->first), digest->second);
}

// Both sides hashed in bounded memory; a note in `lines` says why no finer diff follows.
Status compare_by_digest(const ZipReader& ra, const ArchiveEntry& a, const ZipReader& rb,
                         const ArchiveEntry& b, EntryDiff& entry) {
  auto left = streamed_digest(ra, a);
  if (!left) return tl::unexpected(left.error());
  auto right = streamed_digest(rb, b);
  if (!right) return tl::unexpected(right.error());
  entry.content_changed = *left != *right;
  if (!entry.content_changed) return {};
  entry.sha256_before = left->first;
  entry.sha256_after = right->first;
  entry.lines.push_back("(compared by sha256 only: " + std::to_string(a.size) + " -> " +
                        std::to_string(b.size) +
                        " bytes declared, more than diff reads whole for entries compressed this much)");
  return {};
}

void describe_content(const std::string& name, std::string& left, std::string& right, EntryDiff& entry) {
  entry.sha256_before = platform::to_hex(platform::sha256(left));
  entry.sha256_after = platform::to_hex(platform::sha256(right));
  if (auto elf_a = read_elf(left)) {
    if (auto elf_b = read_elf(right)) diff_elf(*elf_a, *elf_b, entry);
  } else if (is_text(left) && is_text(right)) {
    if (is_header_file(name)) diff_fields(left, right, entry);
    diff_lines(left, right, entry);
  }
}

// Content first: read whole when both sides fit_detail, else compared by streamed digest.
Status compare_content(const ZipReader& ra, const ArchiveEntry& a, const ZipReader& rb, const ArchiveEntry& b,
                       EntryDiff& entry) {
  if (!fits_detail(a) || !fits_detail(b)) return compare_by_digest(ra, a, rb, b, entry);
  auto left = ra.read(a, detail_limit(a));
  if (!left) return tl::unexpected(left.error());
  auto right = rb.read(b, detail_limit(b));
  if (!right) return tl::unexpected(right.error());
  entry.content_changed = *left != *right;
  if (entry.content_changed) describe_content(a.name, *left, *right, entry);
  return {};
}

Status compare_entry(const ZipReader& ra, const ArchiveEntry& a, const ZipReader& rb, const ArchiveEntry& b,
                     std::vector<EntryDiff>& out) {
  EntryDiff entry;
  entry.name = a.name == b.name ? a.name : a.name + " -> " + b.name;
  entry.size_before = a.size;
  entry.size_after = b.size;
  if (auto ok = compare_content(ra, a, rb, b, entry); !ok) return ok;
  if (a.mtime != b.mtime)
    entry.attributes.push_back("mtime " + core::rfc3339_utc(a.mtime) + " -> " + core::rfc3339_utc(b.mtime));
  if (a.external_attributes != b.external_attributes)
    entry.attributes.push_back("mode " + mode_text(a.external_attributes) + " -> " +
                               mode_text(b.external_attributes));
  if (!entry.content_changed && entry.attributes.empty() && a.name == b.name) return {};
  out.push_back(std::move(entry));
  return {};
}

}  // namespace

Result<WheelDiff> diff_wheels(const std::filesystem::path& before, const std::filesystem::path& after) {
  auto ra = ZipReader::open(before);
  if (!ra) return tl::unexpected(ra.error());
  auto rb = ZipReader::open(after);
  if (!rb) return tl::unexpected(rb.error());
  WheelDiff diff;
  auto sum_a = platform::sha256_file(before);
  if (!sum_a) return tl::unexpected(sum_a.error());
  auto sum_b = platform::sha256_file(after);
  if (!sum_b) return tl::unexpected(sum_b.error());
  diff.identical = *sum_a == *sum_b;
  if (diff.identical) return diff;

  const auto renamed = renamed_folders(*ra, *rb);
  std::map<std::string, const ArchiveEntry*> right;
  for (const auto& entry : rb->entries()) right.emplace(entry.name, &entry);
  std::vector<std::string> order_a, order_b;
  std::set<std::string> seen;
  for (const auto& a : ra->entries()) {
    const auto key = match_key(a.name, renamed);
    seen.insert(key);
    const auto found = right.find(key);
    if (found == right.end()) {
      EntryDiff removed;
      removed.name = a.name;
      removed.change = EntryChange::removed;
      removed.size_before = a.size;
      removed.content_changed = true;
      diff.entries.push_back(std::move(removed));
      continue;
    }
    order_a.push_back(key);
    if (auto ok = compare_entry(*ra, a, *rb, *found->second, diff.entries); !ok)
      return tl::unexpected(ok.error());
  }
  for (const auto& b : rb->entries()) {
    const auto& key = b.name;
    if (seen.contains(key)) {
      order_b.push_back(key);
      continue;
    }
    EntryDiff added;
    added.name = b.name;
    added.change = EntryChange::added;
    added.size_after = b.size;
    added.content_changed = true;
    diff.entries.push_back(std::move(added));
  }
  diff.order_changed = order_a != order_b;
  diff.archive_only = diff.entries.empty() && !diff.order_changed;
  return diff;
}

std::string summarize_diff(const WheelDiff& diff, std::size_t limit) {
  if (diff.identical) return "identical";
  std::vector<std::string> parts;
  for (const auto& entry : diff.entries) {
    if (parts.size() == limit) {
      parts.push_back("and " + std::to_string(diff.entries.size() - limit) + " more");
      break;
    }
    std::string part = entry.change == EntryChange::added     ? "added " + entry.name
                       : entry.change == EntryChange::removed ? "removed " + entry.name
                                                              : "changed " + entry.name;
    std::vector<std::string> details;
    for (const auto& field : entry.fields) details.push_back("field " + field.field);
    for (const auto& section : entry.sections) details.push_back("section " + section);
    if (!entry.lines.empty()) details.push_back(std::to_string(entry.lines.size()) + " lines");
    if (!entry.content_changed)
      for (const auto& attribute : entry.attributes) details.push_back(attribute);
    if (details.size() > 4) details.resize(4), details.push_back("...");
    if (!details.empty()) part += " (" + core::join(details, ", ") + ")";
    parts.push_back(std::move(part));
  }
  if (diff.order_changed) parts.push_back("entries in another order");
  if (diff.archive_only) parts.push_back("same entries, other zip bytes (compression or zip fields)");
  return core::join(parts, "; ");
}

}  // namespace relforge::packaging
