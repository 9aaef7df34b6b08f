// The saved upstream listing reader of `index deps --upstream` (channels/deps parse_listing): a
// PEP 691 JSON page or a PEP 503 HTML page from anywhere. Any text is read without a crash, in
// bounded time; JSON pages give exactly the string "filename" values of the "files" array, and no
// file name read from an HTML page is empty.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/deps.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto files = relforge::channels::parse_listing(text, "upstream.json");
  if (!files) return 0;
  // Surrounding white space (as isspace counts it) is not part of the page.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty() || text.front() != '{') {
    for (const auto& name : *files) FUZZ_CHECK(!name.empty(), "no empty file name from an HTML page");
    return 0;
  }
  const auto json = nlohmann::json::parse(text, nullptr, false);
  FUZZ_CHECK(!json.is_discarded() && json.is_object(), "an accepted JSON page is a JSON object");
  std::vector<std::string> expected;
  for (const auto& file : json["files"]) {
    if (file.is_object() && file.contains("filename") && file["filename"].is_string())
      expected.push_back(file["filename"].get<std::string>());
  }
  FUZZ_CHECK(expected == *files, "the files array's string file names, in order");
  return 0;
}
