// pyenv's files as runner detection reads them: any bytes as a shim's head either are no shim or
// give a root that the text names on both of a shim's lines; any bytes as a version file give
// names pyenv would take as they are (no blank, comment or path-like name), and writing those one a
// line reads back the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "builders/pyenv_shim.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace rb = relforge::builders;

void check_shim(std::string_view text) {
  const auto root = rb::parse_pyenv_shim(text);
  if (!root) return;
  const std::string name = root->string();
  FUZZ_CHECK(!name.empty() && name.find_first_of("\"\n") == std::string::npos, "a root is one quoted line");
  FUZZ_CHECK(text.find("\nexport PYENV_ROOT=\"" + name + "\"") != std::string_view::npos,
             "the root is exported");
  FUZZ_CHECK(text.find("\nexec \"" + name + "/libexec/pyenv\" exec") != std::string_view::npos,
             "the shim hands over to that root's pyenv");
}

void check_version_file(std::string_view text) {
  const auto versions = rb::parse_pyenv_version_file(text);
  if (!versions) return;
  std::string written;
  for (const auto& version : *versions) {
    FUZZ_CHECK(!version.empty() && version.find_first_of(" \t\r\n/") == std::string::npos,
               "a version is one word and no path");
    FUZZ_CHECK(version[0] != '#' && version != "..", "no comment and no parent folder");
    written += version + "\n";
  }
  const auto again = rb::parse_pyenv_version_file(written);
  FUZZ_CHECK(again && *again == *versions, "the versions written one a line read back the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_shim(text);
  check_version_file(text);
  return 0;
}
