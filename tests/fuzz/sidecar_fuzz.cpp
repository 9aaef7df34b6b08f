// The sidecar fast path (channels/info_scan) against the general SAX reader (info_from_json): for
// any text the fast path accepts, the general reader accepts it too and reads the same record, so
// `index rebuild` lists a file the same whichever reader saw its sidecar.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "channels/info_scan.hpp"
#include "channels/store.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace ch = relforge::channels;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto plain = ch::scan_plain_info(text);
  const auto general = ch::info_from_json(text, "fuzz.info.json");
  if (!plain) return 0;
  FUZZ_CHECK(general.has_value(), "the general reader accepts what the fast path accepts");
  FUZZ_CHECK(plain->filename == general->filename, "filename");
  FUZZ_CHECK(plain->project == general->project, "project");
  FUZZ_CHECK(plain->version == general->version, "version");
  FUZZ_CHECK(plain->sha256 == general->sha256, "sha256");
  FUZZ_CHECK(plain->size == general->size, "size");
  FUZZ_CHECK(plain->metadata_sha256 == general->metadata_sha256, "metadata_sha256");
  FUZZ_CHECK(plain->requires_python == general->requires_python, "requires_python");
  FUZZ_CHECK(plain->upload_time == general->upload_time, "upload_time");
  FUZZ_CHECK(plain->yanked == general->yanked, "yanked");
  FUZZ_CHECK(plain->yanked_reason == general->yanked_reason, "yanked_reason");
  FUZZ_CHECK(plain->provenance == general->provenance, "provenance");
  return 0;
}
