// Builds: `relforge runners detect`, `relforge build` (plan, run, resume), and the wheel repair
// commands (`relforge wheel repair|retag|verify|inspect`).
#include <signal.h>
#include <unistd.h>

#include <atomic>

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "builders/build_config.hpp"
#include "builders/executor.hpp"
#include "builders/plan.hpp"
#include "builders/runner.hpp"
#include "cli/build_progress.hpp"
#include "cli/build_setup.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "core/text.hpp"
#include "core/time.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "matrix/select.hpp"
#include "packaging/wheel_binary_check.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/digest.hpp"
#include "platform/process.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;

struct WheelRepairCliOptions {
  std::string wheel;
  std::string out = "dist";
  std::string plat;
  std::optional<std::string> local;
  std::optional<std::string> version;
  std::vector<std::string> allow_dlls;
};

void register_repair_like(CLI::App& group, Runtime& runtime, const std::string& name,
                          const std::string& summary) {
  auto options = std::make_shared<WheelRepairCliOptions>();
  CLI::App* command = group.add_subcommand(name, summary);
  command->add_option("wheel", options->wheel, "The wheel to repair")->required();
  command->add_option("--plat", options->plat,
                      "Platform tag to give it (manylinux_2_28_x86_64); ELF files are checked against "
                      "its policy first");
  command->add_option("--local", options->local, "Local version label (cu130, cpu); '' drops it");
  command->add_option("--set-version", options->version, "A new public version (0.3.0.dev20260101)");
  command->add_option("--out", options->out, "Folder for the repaired wheel (default: dist)");
  command->add_option("--allow-dll", options->allow_dlls,
                      "A DLL (glob, case-insensitive: 'cudart64_*.dll') a Windows wheel may import without "
                      "bundling it (repeatable)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    packaging::RepairOptions repair;
    repair.wheel = options->wheel;
    repair.out_dir = options->out;
    if (!options->plat.empty()) repair.platform = options->plat;
    repair.local = options->local;
    repair.version = options->version;
    repair.allow_dlls = options->allow_dlls;
    const auto result = packaging::repair_wheel(repair);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"wheel", result->output.string()},
                                    {"version", result->version},
                                    {"tags", result->tags},
                                    {"copied", result->copied},
                                    {"rewritten", result->rewritten},
                                    {"elf_files", result->elf_files},
                                    {"binaries", result->binaries}})
                  << '\n';
    } else {
      runtime.out << result->output.string() << '\n'
                  << "  version " << result->version << ", tags " << core::join(result->tags, ", ") << '\n'
                  << "  " << result->copied << " entries copied compressed, " << result->rewritten
                  << " rewritten, " << result->elf_files << " ELF files checked";
      if (result->binaries > 0) runtime.out << ", " << result->binaries << " Windows/macOS binaries checked";
      runtime.out << '\n';
    }
    finish(runtime, {});
  });
}

Json binary_json(const packaging::BinaryReport& binary) {
  return {{"file", binary.file},           {"format", binary.format},   {"archs", binary.archs},
          {"min_macos", binary.min_macos}, {"imports", binary.imports}, {"findings", binary.findings}};
}

void register_wheel_verify(CLI::App& group, Runtime& runtime) {
  auto wheel = std::make_shared<std::string>();
  auto allow_dlls = std::make_shared<std::vector<std::string>>();
  CLI::App* command = group.add_subcommand(
      "verify",
      "Check every RECORD hash and size; refuse absolute, '..' and duplicate entries; check the DLLs and "
      "machine of a Windows wheel, the dylibs, architectures and minimum macOS of a macOS wheel");
  command->add_option("wheel", *wheel, "The wheel to verify")->required();
  command->add_option("--allow-dll", *allow_dlls,
                      "A DLL (glob, case-insensitive: 'cudart64_*.dll') a Windows wheel may import without "
                      "bundling it (repeatable)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, wheel, allow_dlls] {
    const auto result = packaging::verify_wheel(*wheel);
    if (!result) return report_error(runtime, result.error());
    const auto binaries = packaging::check_wheel_binaries(*wheel, {*allow_dlls});
    if (!binaries) return report_error(runtime, binaries.error());
    const auto status = packaging::binary_check_status(*wheel, *binaries);
    // The findings are a report: with --json it goes to stdout whether or not the check passed, and
    // the exit code (9 on findings) says which.
    if (runtime.json) {
      Json listed = Json::array();
      for (const auto& binary : binaries->binaries) listed.push_back(binary_json(binary));
      runtime.out << json_text(Json{{"wheel", *wheel},
                                    {"entries", result->entries},
                                    {"hashed", result->hashed},
                                    {"bytes", result->bytes},
                                    {"platforms", binaries->platforms},
                                    {"binaries", listed},
                                    {"ok", static_cast<bool>(status)}})
                  << '\n';
    }
    if (!status) return report_error(runtime, status.error());
    if (!runtime.json) {
      // RECORD itself (and its signature files) are listed without a hash: entries counts them too.
      runtime.out << *wheel << ": OK (" << result->entries << " entries, " << result->hashed << " hashed, "
                  << result->bytes << " bytes";
      if (!binaries->platforms.empty())
        runtime.out << "; " << binaries->binaries.size() << " binaries pass "
                    << core::join(binaries->platforms, ", ");
      runtime.out << ")\n";
    }
    finish(runtime, {});
  });
}

void register_wheel_inspect(CLI::App& group, Runtime& runtime) {
  auto wheel = std::make_shared<std::string>();
  CLI::App* command =
      group.add_subcommand("inspect", "Show a wheel's tags, files and what its ELF files need");
  command->add_option("wheel", *wheel, "The wheel to inspect")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, wheel] {
    const auto r = packaging::inspect_wheel(*wheel);
    if (!r) return report_error(runtime, r.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"filename", r->filename},
                                    {"name", r->name},
                                    {"version", r->version},
                                    {"tags", r->tags},
                                    {"dist_info", r->dist_info},
                                    {"files", r->files},
                                    {"elf_files", r->elf_files},
                                    {"symbol_versions", r->glibc_versions},
                                    {"needed", r->needed}})
                  << '\n';
    } else {
      runtime.out << r->filename << "\n  name " << r->name << ", version " << r->version << "\n  tags "
                  << core::join(r->tags, ", ") << "\n  " << r->files.size()
                  << " files, ELF: " << core::join(r->elf_files, ", ") << "\n  needs "
                  << core::join(r->glibc_versions, ", ") << "; links " << core::join(r->needed, ", ") << '\n';
    }
    finish(runtime, {});
  });
}

void register_wheel_hash(CLI::App& group, Runtime& runtime) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* command = group.add_subcommand(
      "hash", "Print the sha256 of files: hex (like sha256sum) and RECORD's sha256=<base64url> form");
  command->add_option("files", *files, "Files to hash (a wheel, or any file)")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, files] {
    Json all = Json::array();
    for (const auto& file : *files) {
      const auto digest = platform::sha256_file(file);
      if (!digest) return report_error(runtime, digest.error());
      std::error_code ec;
      const auto size = std::filesystem::file_size(file, ec);
      if (runtime.json)
        all.push_back({{"file", file},
                       {"sha256", platform::to_hex(*digest)},
                       {"record", "sha256=" + platform::base64url_nopad(*digest)},
                       {"size", ec ? 0 : size}});
      else
        runtime.out << platform::to_hex(*digest) << "  " << file << '\n';
    }
    if (runtime.json) runtime.out << json_text(Json{{"files", all}}) << '\n';
    finish(runtime, {});
  });
}

// ---- runners and build ----

// Ctrl-C (SIGINT) or SIGTERM during `relforge build`: the handler only raises the flag the
// executor polls; the executor kills the running cells' process groups and records them.
std::atomic<bool> g_build_cancel{false};
std::atomic<int> g_build_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

extern "C" void on_build_signal(int signal_number) {
  g_build_signal.store(signal_number);
  g_build_cancel.store(true);
}

// Installs the handler for the lifetime of the object, restoring the previous ones afterwards.
class BuildSignals {
public:
  BuildSignals() {
    g_build_cancel = false;
    g_build_signal = 0;
    struct sigaction action {};
    action.sa_handler = on_build_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_old_int);
    ::sigaction(SIGTERM, &action, &m_old_term);
  }
  ~BuildSignals() {
    ::sigaction(SIGINT, &m_old_int, nullptr);
    ::sigaction(SIGTERM, &m_old_term, nullptr);
  }
  BuildSignals(const BuildSignals&) = delete;
  BuildSignals& operator=(const BuildSignals&) = delete;

private:
  struct sigaction m_old_int {};
  struct sigaction m_old_term {};
};

builders::DetectOptions detect_options(Runtime& runtime) {
  return local_detect_options(runtime.getenv("PATH").value_or("/usr/bin:/bin"), runtime.getenv);
}

Json runner_json(const builders::Runner& runner) {
  Json pythons = Json::array(), toolkits = Json::array();
  for (const auto& python : runner.pythons)
    pythons.push_back({{"version", python.version}, {"path", python.path.string()}});
  for (const auto& kit : runner.toolkits)
    toolkits.push_back({{"kind", kit.kind},
                        {"program", builders::toolkit_program(kit.kind)},
                        {"version", kit.version},
                        {"path", kit.path.string()}});
  return {{"name", runner.name},
          {"source", runner.source == builders::RunnerSource::detected ? "detected" : "declared"},
          {"labels", runner.labels},
          {"os", runner.os},
          {"arch", runner.arch},
          {"pythons", pythons},
          {"toolkits", toolkits},
          {"gpus", runner.gpus},
          {"gpu_vendor", runner.gpu_vendor},
          {"slots", runner.slots}};
}

void print_runner(std::ostream& out, const builders::Runner& runner) {
  std::vector<std::string> pythons, kits;
  for (const auto& python : runner.pythons)
    pythons.push_back(python.version + " (" + python.path.string() + ")");
  for (const auto& kit : runner.toolkits)
    kits.push_back(builders::toolkit_program(kit.kind) + (kit.version.empty() ? "" : " " + kit.version) +
                   (kit.path.empty() ? "" : " (" + kit.path.string() + ")"));
  out << runner.name
      << (runner.source == builders::RunnerSource::detected ? " (this machine)" : " (declared)") << '\n'
      << "  labels:   " << core::join(runner.labels, ", ") << '\n'
      << "  platform: " << runner.os << " " << runner.arch << ", " << runner.slots << " slots, "
      << runner.gpus << " GPUs" << (runner.gpu_vendor.empty() ? "" : " (" + runner.gpu_vendor + ")") << '\n'
      << "  pythons:  " << (pythons.empty() ? "none" : core::join(pythons, ", ")) << '\n'
      << "  toolkits: " << (kits.empty() ? "none" : core::join(kits, ", ")) << '\n';
}

struct BuildCliOptions {
  std::string config = "relforge.toml";
  std::string channel = "nightly";
  matrix::Selection selection;
  std::vector<std::string> cells;
  std::optional<std::string> version;
  std::optional<std::string> state_dir;
  int jobs = 0;
  bool plan = false, resume = false, dry_run = false, keep_going = true;
};

Result<builders::BuildOptions> prepare_build(const BuildCliOptions& cli, Runtime& runtime) {
  BuildSetup setup;
  setup.config = cli.config;
  setup.channel = cli.channel;
  setup.selection = cli.selection;
  setup.state_dir = cli.state_dir;
  setup.path_env = runtime.getenv("PATH").value_or("/usr/bin:/bin");
  setup.getenv = runtime.getenv;
  auto options = prepare_build_options(setup);
  if (!options) return options;
  if (!cli.cells.empty()) {
    std::erase_if(options->cells, [&](const matrix::Cell& cell) {
      return std::find(cli.cells.begin(), cli.cells.end(), std::string(cell.id())) == cli.cells.end();
    });
    if (options->cells.empty())
      return fail(ErrorCategory::nothing_selected,
                  "no cell of " + cli.config + " matches --cell " + core::join(cli.cells, ", "));
  }
  if (cli.version) options->config.version = *cli.version;
  options->jobs = cli.jobs;
  options->resume = cli.resume ? builders::Resume::yes : builders::Resume::no;
  options->dry_run = cli.dry_run ? builders::DryRun::yes : builders::DryRun::no;
  options->keep_going = cli.keep_going ? builders::KeepGoing::yes : builders::KeepGoing::no;
  options->now_unix = [&clock = runtime.clock] { return clock.unix_seconds(); };
  return options;
}

std::string seconds_text(std::int64_t ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(ms) / 1000.0 << " s";
  return out.str();
}

void print_plan(Runtime& runtime, const builders::BuildOptions& options) {
  const auto plan = builders::plan_cells(options.cells, options.runners);
  if (runtime.json) {
    Json cells = Json::array();
    for (const auto& a : plan)
      cells.push_back({{"cell", a.cell_id},
                       {"python", a.needs.python},
                       {"accel", a.needs.accel_type},
                       {"accel_version", a.needs.accel_version},
                       {"runner", a.runner ? Json(a.runner->name) : Json(nullptr)},
                       {"reason", a.reason}});
    runtime.out << json_text(Json{{"cells", cells}}) << '\n';
    return;
  }
  std::size_t assigned = 0;
  for (const auto& a : plan) {
    if (a.runner) {
      ++assigned;
      runtime.out << a.cell_id << ": " << a.runner->name << " (" << core::join(a.runner->labels, ", ")
                  << ")\n";
    } else {
      runtime.out << a.cell_id << ": " << a.reason << '\n';
    }
  }
  runtime.out << assigned << " of " << plan.size() << " cells have a runner\n";
}

void print_summary(Runtime& runtime, const std::vector<builders::CellOutcome>& outcomes) {
  if (runtime.json) {
    Json cells = Json::array();
    for (const auto& o : outcomes) cells.push_back(outcome_json(o));
    runtime.out << json_text(Json{{"cells", cells}}) << '\n';
    return;
  }
  runtime.out << std::left << std::setw(14) << "cell" << std::setw(10) << "runner" << std::setw(22)
              << "result" << std::setw(10) << "duration"
              << "wheel / log / note\n";
  for (const auto& o : outcomes) {
    runtime.out << std::left << std::setw(14) << o.cell << std::setw(10)
                << (o.runner.empty() ? "-" : o.runner) << std::setw(22)
                << builders::cell_result_name(o.result) << std::setw(10)
                << (o.duration_ms ? seconds_text(o.duration_ms) : "-")
                << (o.wheel.empty() ? o.message : o.wheel) << '\n';
    if (!o.log.empty() && o.result != builders::CellResult::succeeded &&
        o.result != builders::CellResult::up_to_date)
      runtime.out << std::setw(56) << ""
                  << "log: " << o.log << '\n';
  }
  for (const auto& o : outcomes) {
    if (o.result != builders::CellResult::failed && o.result != builders::CellResult::timed_out) continue;
    runtime.out << "\n== " << o.cell << ": " << o.message << "\n   last lines of " << o.log << ":\n";
    for (const auto& line : o.log_tail) runtime.out << "   | " << line << '\n';
  }
}

}  // namespace

void register_runners(CLI::App& group, Runtime& runtime) {
  auto config = std::make_shared<std::string>();
  CLI::App* detect =
      group.add_subcommand("detect", "Describe this machine as a runner: Pythons, nvcc/hipcc/icpx, slots");
  detect->add_option("--config", *config, "Also list the runners declared in this relforge.toml");
  add_json_flag(*detect, runtime);
  detect->callback([&runtime, config] {
    auto local = builders::detect_local_runner(detect_options(runtime));
    if (!local) return report_error(runtime, local.error());
    std::vector<builders::Runner> runners{*local};
    if (!config->empty()) {
      auto loaded = builders::load_build_config(*config);
      if (!loaded) return report_error(runtime, loaded.error());
      runners.insert(runners.end(), loaded->runners.begin(), loaded->runners.end());
    }
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& runner : runners) all.push_back(runner_json(runner));
      runtime.out << json_text(Json{{"runners", all}}) << '\n';
    } else {
      for (const auto& runner : runners) print_runner(runtime.out, runner);
    }
    finish(runtime, {});
  });
  register_runner_classes(group, runtime);
}

void register_build(CLI::App& command, Runtime& runtime) {
  auto cli = std::make_shared<BuildCliOptions>();
  command.add_option("--config", cli->config,
                     "The relforge.toml with [matrix] and [recipe] (default: ./relforge.toml)");
  command.add_option("--channel", cli->channel,
                     "The channel to expand (nightly, test, stable; release is an alias of stable)");
  command.add_option("--select", cli->selection.select, "Build only cells whose build id matches a glob");
  command.add_option("--skip", cli->selection.skip, "Skip cells whose build id matches a glob");
  command.add_option("--cell", cli->cells, "Build only the cell with this id (repeatable)");
  command.add_option("--version", cli->version, "The public version to build (default: [build] version)");
  command.add_option("--state-dir", cli->state_dir,
                     "Where the ledger, logs, work dirs and wheels go (default: .relforge)");
  command.add_option("--jobs,-j", cli->jobs, "Cells built at once (default: the runner's slots)");
  command.add_flag("--plan", cli->plan, "Only show which runner takes each cell, or why none can");
  command.add_flag("--resume", cli->resume, "Skip cells whose inputs are unchanged since they succeeded");
  command.add_flag("--dry-run", cli->dry_run, "Show what would be built, build nothing");
  // "--keep-going" sets keep_going, the negated "--fail-fast" clears it.
  command.add_flag("--keep-going,!--fail-fast", cli->keep_going,
                   "Go on after a failing cell (default) or stop");
  add_json_flag(command, runtime);
  command.callback([&runtime, cli] {
    auto options = prepare_build(*cli, runtime);
    if (!options) return report_error(runtime, options.error());
    if (cli->plan) {
      print_plan(runtime, *options);
      return finish(runtime, {});
    }
    const core::Clock& clock = runtime.clock;
    const std::int64_t start_ms = clock.monotonic_ms();
    auto elapsed = [&clock, start_ms] { return (clock.monotonic_ms() - start_ms) / 1000; };
    // On a terminal a status line (counts, each running cell's elapsed time and ETA) stays last and
    // ticks every second; under GitHub Actions each cell's log is a collapsible group; elsewhere
    // plain lines, prefixed with the cell when several cells build at once.
    const bool tty =
        terminal_status_allowed(runtime, &runtime.err == &std::cerr && ::isatty(STDERR_FILENO) == 1);
    const bool github = runtime.getenv("GITHUB_ACTIONS").value_or("") == "true";
    const auto mode = github ? DisplayMode::github : tty ? DisplayMode::tty : DisplayMode::plain;
    const bool several = options->cells.size() > 1 && options->jobs != 1;
    BuildDisplay display(
        runtime.err, mode, several ? Prefix::yes : Prefix::no, options->monotonic_ms, [&clock, elapsed] {
          return core::utc_time_of_day(clock.unix_seconds()) + " [+" + std::to_string(elapsed()) + "s] ";
        });
    options->on_line = [&display](const std::string& line) { display.line(line); };
    options->on_output = [&display](const std::string& cell, const std::string& line) {
      display.output(cell, line);
    };
    options->on_progress = [&display](const builders::BuildProgress& progress) {
      display.progress(progress);
    };
    options->cancel = &g_build_cancel;
    Result<std::vector<builders::CellOutcome>> outcomes = [&] {
      BuildSignals signals;
      return builders::run_build(*options);
    }();
    display.finish();
    if (!outcomes) return report_error(runtime, outcomes.error());
    print_summary(runtime, *outcomes);
    if (g_build_cancel) {
      std::size_t killed = 0;
      for (const auto& o : *outcomes)
        if (o.result == builders::CellResult::interrupted) ++killed;
      const int signal_number = g_build_signal.load();
      runtime.err << "relforge: interrupted by " << (signal_number == SIGTERM ? "SIGTERM" : "SIGINT") << ": "
                  << killed << " running cell(s) killed and recorded as interrupted in the ledger; "
                  << "rerun with --resume to build what is left\n";
      runtime.exit_code = 130;
      return;
    }
    std::size_t failed = 0;
    for (const auto& o : *outcomes)
      if (o.result == builders::CellResult::failed || o.result == builders::CellResult::timed_out) ++failed;
    if (failed > 0)
      return report_error(runtime, Error(ErrorCategory::io,
                                         std::to_string(failed) + " of " + std::to_string(outcomes->size()) +
                                             " cells failed: see the summary and logs above"));
    finish(runtime, {});
  });
}

void register_wheel_repair(CLI::App& command, Runtime& runtime) {
  register_repair_like(command, runtime, "repair",
                       "Set the version and local label, check the manylinux policy, retag, rebuild RECORD");
  register_repair_like(command, runtime, "retag", "Like repair: retag the platform (after the policy check)");
  register_wheel_verify(command, runtime);
  register_wheel_inspect(command, runtime);
  register_wheel_hash(command, runtime);
}

}  // namespace relforge::cli
