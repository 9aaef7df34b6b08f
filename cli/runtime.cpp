#include "cli/runtime.hpp"

#include <csignal>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.hpp"

namespace relforge::cli {

void add_json_flag(CLI::App& command, Runtime& runtime) {
  command.add_flag("--json", runtime.json, "Print machine-readable JSON instead of text");
}

void report_error(Runtime& runtime, const Error& error) {
  runtime.exit_code = exit_code_for(error.category());
  if (runtime.json) {
    nlohmann::json body = {{"error",
                            {{"category", category_name(error.category())},
                             {"message", error.message()},
                             {"context", error.context()},
                             {"exit_code", runtime.exit_code}}}};
    runtime.err << json_text(body, -1) << '\n';
    return;
  }
  runtime.err << "relforge: error: " << error.describe() << '\n';
}

void finish(Runtime& runtime, const Status& status) {
  if (status) {
    runtime.exit_code = k_exit_ok;
    return;
  }
  report_error(runtime, status.error());
}

std::function<void(std::string_view)> crash_hook([[maybe_unused]] const Runtime& runtime) {
#if RELFORGE_TEST_HOOKS
  auto crash_at = runtime.getenv("RELFORGE_TEST_CRASH_AT");
  if (!crash_at) return {};
  return [stage = *crash_at](std::string_view reached) {
    if (reached == stage) std::raise(SIGKILL);
  };
#else
  return {};
#endif
}

}  // namespace relforge::cli
