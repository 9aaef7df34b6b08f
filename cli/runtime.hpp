#pragma once
// What every command handler needs from the outside world: streams, the environment, the clock,
// and the place to leave its exit code. main() builds the real one; tests build one over string
// streams (and may pass a core::ManualClock).
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "core/time.hpp"
#include "platform/clock.hpp"

namespace relforge::cli {

struct Runtime {
  std::ostream& out;
  std::ostream& err;
  std::istream& in;
  std::function<std::optional<std::string>(const std::string&)> getenv;
  bool json = false;
  int exit_code = 0;
  // The only clock commands read; modules get it (or values read from it) as parameters.
  const core::Clock& clock = platform::system_clock();
};

// Adds the `--json` flag every command carries.
void add_json_flag(CLI::App& command, Runtime& runtime);

// Renders a failure to stderr (text, or a JSON object with --json) and records its exit code.
void report_error(Runtime& runtime, const Error& error);

// Runs a handler's result through report_error; sets exit code 0 on success.
void finish(Runtime& runtime, const Status& status);

// The text of a JSON answer (nlohmann's json or ordered_json): bytes that are not UTF-8 (a path, a
// log line, a name read from a file) come out as U+FFFD instead of ending the command as a bug.
template <class Json>
std::string json_text(const Json& value, int indent = 2) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Tests kill a command at a named stage or step (RELFORGE_TEST_CRASH_AT) to prove a re-run finishes
// it and nothing is left half-written. Only builds with tests have the hook: a released binary
// never reads the variable, and gets an empty hook.
std::function<void(std::string_view)> crash_hook(const Runtime& runtime);

}  // namespace relforge::cli
