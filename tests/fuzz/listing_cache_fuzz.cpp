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

std::string render(const std::vector<ch::FileInfo>& files) {
  std::vector<ch::IndexedFile> indexed;
  for (const auto& info : files) indexed.push_back({info, info.filename});
  return ch::render_listing(indexed);
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
  const auto files = ch::parse_listing(text);
  if (!files) return 0;
  const std::string rendered = render(*files);
  const auto again = ch::parse_listing(rendered);
  FUZZ_CHECK(again.has_value(), "a rendered listing reads back");
  FUZZ_CHECK(again->size() == files->size(), "the same number of files");
  for (std::size_t i = 0; i < files->size(); ++i)
    FUZZ_CHECK(same((*files)[i], (*again)[i]), "the same files");
  FUZZ_CHECK(render(*again) == rendered, "rendering is a fixed point");
  return 0;
}
