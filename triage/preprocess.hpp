#pragma once
// Line clean-up before classification: strip the GitHub Actions timestamp prefix
// (`2024-05-01T12:34:56.1234567Z `) and ANSI escape sequences; make text valid UTF-8 for output.
#include <string>
#include <string_view>

namespace relforge::triage {

// The line without its GHA timestamp prefix (unchanged when it has none).
std::string_view strip_timestamp(std::string_view line);

// The line without ANSI escapes; returns `line` itself when it has none, else fills `scratch`.
std::string_view strip_ansi(std::string_view line, std::string& scratch);

// Both, in that order.
std::string_view clean_line(std::string_view line, std::string& scratch);

}  // namespace relforge::triage
