#include "builders/smoke.hpp"

#include <system_error>

#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace relforge::builders {
namespace {

Status step(const std::string& what, std::vector<std::string> argv, const SmokeSpec& spec) {
  platform::ProcessSpec process;
  process.argv = std::move(argv);
  process.working_dir = spec.venv.parent_path();
  // Clean: no LD_LIBRARY_PATH, no PYTHONPATH; libraries must resolve through the wheel itself.
  process.environment = {{"PATH", spec.path_env},
                         {"HOME", spec.venv.parent_path().string()},
                         {"PIP_NO_INDEX", "1"},
                         {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
                         {"LANG", "C.UTF-8"}};
  process.environment_mode = platform::EnvironmentMode::clean;
  process.timeout = std::chrono::milliseconds(300000);
  process.cancel = spec.cancel;
  auto result = platform::run_process(process);
  if (!result) return tl::unexpected(result.error().with_context("smoke test: " + what));
  if (result->cancelled) return fail(ErrorCategory::io, "smoke test interrupted at " + what);
  // The log is hashed into the wheel's provenance: a smoke test it does not show is not recorded.
  if (auto logged = platform::append_file(spec.log, "== smoke: " + what + "\n" + result->out + result->err);
      !logged)
    return tl::unexpected(logged.error().with_context("smoke test: " + what + ": recording its output"));
  if (result->exit_code != 0) {
    std::string output = result->err.empty() ? result->out : result->err;
    if (output.size() > 2000) output = output.substr(output.size() - 2000);
    return fail(ErrorCategory::integrity, "smoke test failed at " + what + " (exit " +
                                              std::to_string(result->exit_code) + "): " + output);
  }
  return {};
}

}  // namespace

std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      const auto close = text.find('}', i);
      if (close != std::string::npos) {
        const auto found = values.find(text.substr(i + 1, close - i - 1));
        if (found != values.end()) {
          out += found->second;
          i = close;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

Status run_smoke_test(const SmokeSpec& spec) {
  std::error_code ec;
  std::filesystem::remove_all(spec.venv, ec);
  if (ec)
    return fail(ErrorCategory::io,
                "smoke test: cannot remove the old venv " + spec.venv.string() + ": " + ec.message());
  if (auto ok = step("venv", {spec.python.string(), "-m", "venv", spec.venv.string()}, spec); !ok) return ok;
  const auto python = (spec.venv / "bin" / "python").string();
  if (auto ok = step(
          "pip install",
          {python, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet", spec.wheel.string()}, spec);
      !ok)
    return ok;
  for (std::size_t i = 0; i < spec.checks.size(); ++i) {
    if (auto ok = step("check " + std::to_string(i + 1) + " `" + spec.checks[i] + "`",
                       {python, "-c", spec.checks[i]}, spec);
        !ok)
      return ok;
  }
  return {};
}

}  // namespace relforge::builders
