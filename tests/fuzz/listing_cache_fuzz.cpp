// The .relforge-listing reader (channels/listing_cache): a store file anyone with write access to the
// store can edit. Any text is read without a crash; what it accepts renders back to a listing that
// reads as the same files, and rendering that again gives the same bytes (a fixed point).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "channels/listing_cache.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace ch = relforge::channels;

std::string render(const ch::CachedListing& listing) {
  std::vector<std::string> sections;
  for (const auto& [variant, files] : listing) {
    std::vector<ch::IndexedFile> indexed;
    for (const auto& info : files) indexed.push_back({info, info.filename});
    sections.push_back(ch::render_listing_section(variant, indexed));
  }
  return ch::render_listing(sections);
}

bool same(const ch::FileInfo& a, const ch::FileInfo& b) {
  return a.filename == b.filename && a.project == b.project && a.version == b.version &&
         a.sha256 == b.sha256 && a.size == b.size && a.metadata_sha256 == b.metadata_sha256 &&
         a.requires_python == b.requires_python && a.upload_time == b.upload_time && a.yanked == b.yanked &&
         a.yanked_reason == b.yanked_reason && a.provenance == b.provenance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto listing = ch::parse_listing(text);
  if (!listing) return 0;
  const std::string rendered = render(*listing);
  const auto again = ch::parse_listing(rendered);
  FUZZ_CHECK(again.has_value(), "a rendered listing reads back");
  FUZZ_CHECK(again->size() == listing->size(), "the same variants");
  for (const auto& [variant, files] : *listing) {
    const auto found = again->find(variant);
    FUZZ_CHECK(found != again->end() && found->second.size() == files.size(), "the same number of files");
    for (std::size_t i = 0; i < files.size(); ++i)
      FUZZ_CHECK(same(files[i], found->second[i]), "the same files");
  }
  FUZZ_CHECK(render(*again) == rendered, "rendering is a fixed point");
  return 0;
}
