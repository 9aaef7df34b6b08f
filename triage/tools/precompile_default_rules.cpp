// Build-time tool: writes OUT.cpp, the built-in rules' Hyperscan database serialized into the
// binary, so `triage classify` loads it in microseconds instead of compiling it (~80 ms a process).
// Compiled for any x86-64; a machine or Hyperscan version that cannot load it compiles as before.
#include <cstdio>
#include <string>
#include <string_view>

#include "platform/fs.hpp"
#include "triage/raw_prefilter.hpp"
#include "triage/rules.hpp"

namespace {

// A C++ string literal of any bytes: every byte as an octal escape (three digits, so a digit
// after it never extends it, as it would a \x escape).
std::string literal(std::string_view bytes) {
  std::string out = "\"";
  int column = 0;
  for (const unsigned char byte : bytes) {
    char escape[5];
    std::snprintf(escape, sizeof escape, "\\%03o", byte);
    out += escape;
    if (++column == 32) {
      out += "\"\n    \"";
      column = 0;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace relforge::triage;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.cpp\n", argv[0]);
    return 2;
  }
  auto spec = parse_rule_spec(default_rules_toml(), "<built-in rules>");
  if (!spec) {
    std::fprintf(stderr, "precompile: the built-in rules do not parse: %s\n", spec.error().message().c_str());
    return 1;
  }
  std::string table;
  if (const auto filter = RawPrefilter::build(*spec)) {
    const std::string& key = filter->database().key();
    const std::string bytes = HyperscanSet::serialize_portable(key);
    if (bytes.empty()) {
      std::fprintf(stderr, "precompile: Hyperscan cannot serialize the built-in rules' database\n");
      return 1;
    }
    table = "      {std::string_view(" + literal(key) + ", " + std::to_string(key.size()) +
            "),\n       std::string_view(" + literal(bytes) + ", " + std::to_string(bytes.size()) + ")},\n";
  }
  // No database (a built-in pattern Hyperscan cannot carry): an empty table, and compiling as before.
  const std::string body = table.empty()
                               ? "std::span<const PrecompiledDatabase> precompiled_databases() {\n"
                                 "  return {};\n"
                                 "}\n"
                               : "namespace {\n"
                                 "const PrecompiledDatabase k_databases[] = {\n" +
                                     table +
                                     "};\n"
                                     "}  // namespace\n\n"
                                     "std::span<const PrecompiledDatabase> precompiled_databases() {\n"
                                     "  return k_databases;\n"
                                     "}\n";
  const std::string source =
      "// Generated at build time by triage/tools/precompile_default_rules.cpp: the built-in rules'\n"
      "// Hyperscan database. Do not edit.\n"
      "#include \"triage/hyperscan_set.hpp\"\n\n"
      "namespace relforge::triage {\n\n" +
      body + "\n}  // namespace relforge::triage\n";
  if (auto written =
          relforge::platform::write_file_atomic(argv[1], source, relforge::platform::Durability::no_fsync);
      !written) {
    std::fprintf(stderr, "precompile: %s\n", written.error().message().c_str());
    return 1;
  }
  return 0;
}
