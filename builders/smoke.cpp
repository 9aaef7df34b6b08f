#include "builders/smoke.hpp"

#include <system_error>

#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace relforge::builders {
namespace {

// Making a shared venv template is logged only when it fails: which cell happens to make it must
// not change the logs (they are hashed into the wheels' provenance).
enum class Record { always, on_failure };

Status step(const std::string& what, std::vector<std::string> argv, const SmokeSpec& spec,
            Record record = Record::always) {
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
  if (record == Record::always || result->exit_code != 0) {
    if (auto logged = platform::append_file(spec.log, "== smoke: " + what + "\n" + result->out + result->err);
        !logged)
      return tl::unexpected(logged.error().with_context("smoke test: " + what + ": recording its output"));
  }
  if (result->exit_code != 0) {
    std::string output = result->err.empty() ? result->out : result->err;
    if (output.size() > 2000) output = output.substr(output.size() - 2000);
    return fail(ErrorCategory::integrity, "smoke test failed at " + what + " (exit " +
                                              std::to_string(result->exit_code) + "): " + output);
  }
  return {};
}

// The template for spec.python: named by the interpreter's resolved path, size and mtime, so an
// upgraded interpreter gets a new one. Made beside its final name and renamed into place, so
// cells (or runs) making it at once never see half of one: the first rename wins.
Result<std::filesystem::path> venv_template(const SmokeSpec& spec) {
  std::error_code ec;
  const auto interpreter = std::filesystem::canonical(spec.python, ec);
  if (ec)
    return fail(ErrorCategory::io,
                "smoke test: cannot resolve " + spec.python.string() + ": " + ec.message());
  const auto size = std::filesystem::file_size(interpreter, ec);
  const auto mtime = std::filesystem::last_write_time(interpreter, ec).time_since_epoch().count();
  const std::string identity =
      interpreter.string() + "\n" + std::to_string(size) + "\n" + std::to_string(mtime);
  const auto name =
      interpreter.filename().string() + "-" + platform::to_hex(platform::sha256(identity)).substr(0, 16);
  const auto ready = spec.venv_templates / name;
  if (std::filesystem::exists(ready / "pyvenv.cfg", ec)) return ready;
  std::filesystem::create_directories(spec.venv_templates, ec);
  if (ec)
    return fail(ErrorCategory::io,
                "smoke test: cannot create " + spec.venv_templates.string() + ": " + ec.message());
  const auto staging = spec.venv_templates / (name + platform::temp_suffix());
  std::filesystem::remove_all(staging, ec);
  if (auto made =
          step("venv", {spec.python.string(), "-m", "venv", staging.string()}, spec, Record::on_failure);
      !made) {
    std::filesystem::remove_all(staging, ec);
    return tl::unexpected(made.error());
  }
  std::filesystem::rename(staging, ready, ec);
  if (ec) std::filesystem::remove_all(staging, ec);  // another cell's template is in place
  if (!std::filesystem::exists(ready / "pyvenv.cfg", ec))
    return fail(ErrorCategory::io, "smoke test: cannot put the venv template at " + ready.string());
  return ready;
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
  // `python -m venv` spends ~2 s installing pip; a copy of the venv it made takes ~0.3 s.
  auto ready = venv_template(spec);
  if (!ready) return tl::unexpected(ready.error());
  std::filesystem::copy(
      *ready, spec.venv,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks, ec);
  if (ec)
    return fail(ErrorCategory::io, "smoke test: cannot copy the venv " + ready->string() + " to " +
                                       spec.venv.string() + ": " + ec.message());
  if (auto logged = platform::append_file(
          spec.log, "== smoke: venv (a copy of " + ready->string() + ", made by `python -m venv`)\n");
      !logged)
    return tl::unexpected(logged.error().with_context("smoke test: venv: recording its output"));
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
