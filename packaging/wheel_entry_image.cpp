#include "packaging/wheel_entry_image.hpp"

#include <zip.h>

#include <algorithm>

#include "platform/reserved_memory.hpp"

namespace relforge::packaging {
namespace {

constexpr std::uint64_t k_step = 64 << 10;  // inflate at least this much per call

class EntryImage final : public ElfImage {
public:
  EntryImage(const ZipReader& reader, const ArchiveEntry& entry, platform::ReservedMemory memory)
      : m_reader(reader), m_entry(entry), m_memory(std::move(memory)), m_map(m_memory.data()) {}
  ~EntryImage() override {
    if (m_file != nullptr) zip_fclose(m_file);
  }
  EntryImage(const EntryImage&) = delete;
  EntryImage& operator=(const EntryImage&) = delete;

  std::uint64_t size() const override { return m_entry.size; }
  char* data() override { return m_map; }

  Status cover_prefix(std::uint64_t end) override {
    end = std::min(m_entry.size, end);
    if (end <= m_prefix) return {};
    if (m_position != m_prefix) {  // the stream went past a gap: start again from the entry's start
      if (auto ok = reopen(); !ok) return ok;
      m_prefix = 0;
    }
    const std::uint64_t until = std::min(m_entry.size, std::max(end, m_prefix + k_step));
    if (auto ok = read_into(m_map + m_prefix, until - m_prefix); !ok) return ok;
    m_prefix = until;
    return {};
  }

  Status cover_ranges(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) override {
    std::erase_if(ranges, [&](const auto& range) {
      return range.second == 0 || range.first + range.second <= m_prefix || range.first >= m_entry.size;
    });
    if (ranges.empty()) return {};
    std::sort(ranges.begin(), ranges.end());
    if (ranges.front().first < m_position) {
      if (auto ok = reopen(); !ok) return ok;
    }
    for (const auto& [first, length] : ranges) {
      const std::uint64_t end = std::min(m_entry.size, first + length);
      if (end <= m_position) continue;
      if (first > m_position) {
        if (auto ok = skip(first - m_position); !ok) return ok;
      }
      if (auto ok = read_into(m_map + m_position, end - m_position); !ok) return ok;
    }
    return {};
  }

private:
  Status fail_entry(const std::string& what) const {
    return fail(ErrorCategory::integrity,
                "'" + m_reader.path().string() + "': entry '" + m_entry.name + "' " + what);
  }

  Status reopen() {
    if (m_file != nullptr) zip_fclose(m_file);
    m_file = zip_fopen_index(m_reader.handle(), m_entry.index, 0);
    m_position = 0;
    if (m_file == nullptr)
      return fail_entry(std::string("cannot be opened: ") + zip_strerror(m_reader.handle()));
    return {};
  }

  // Inflates the next `length` bytes to `target`, advancing the stream.
  Status read_into(char* target, std::uint64_t length) {
    if (m_file == nullptr) {
      if (auto ok = reopen(); !ok) return ok;
    }
    while (length > 0) {
      const zip_int64_t got = zip_fread(m_file, target, std::min<std::uint64_t>(length, 1 << 20));
      if (got < 0) return fail_entry(std::string("is corrupt: ") + zip_file_strerror(m_file));
      if (got == 0) return fail_entry("ends before its stated size");
      const auto count = static_cast<std::uint64_t>(got);
      target += count;
      length -= count;
      m_position += count;
    }
    return {};
  }

  // Inflates and drops `length` bytes (through a small buffer, not the mapping).
  Status skip(std::uint64_t length) {
    if (m_scratch.empty()) m_scratch.resize(1 << 20);
    while (length > 0) {
      const std::uint64_t step = std::min<std::uint64_t>(length, m_scratch.size());
      const std::uint64_t before = m_position;
      if (auto ok = read_into(m_scratch.data(), step); !ok) return ok;
      length -= m_position - before;
    }
    return {};
  }

  const ZipReader& m_reader;
  const ArchiveEntry& m_entry;
  platform::ReservedMemory m_memory;
  char* m_map;
  zip_file_t* m_file = nullptr;
  std::uint64_t m_prefix = 0;    // [0, m_prefix) is in the mapping
  std::uint64_t m_position = 0;  // bytes the open stream has produced
  std::string m_scratch;
};

}  // namespace

Result<std::unique_ptr<ElfImage>> open_entry_image(const ZipReader& reader, const ArchiveEntry& entry) {
  // Untouched pages of an anonymous mapping cost no memory: only what is inflated is resident.
  auto memory = platform::ReservedMemory::reserve(static_cast<std::size_t>(entry.size));
  if (!memory) return tl::unexpected(memory.error().with_context("reading '" + entry.name + "'"));
  return std::unique_ptr<ElfImage>(std::make_unique<EntryImage>(reader, entry, std::move(*memory)));
}

}  // namespace relforge::packaging
