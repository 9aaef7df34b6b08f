// Builds: `relforge runners detect`, `relforge build` (plan, run, resume), and the wheel repair
// commands (`relforge wheel repair|retag|verify|inspect`).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
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
#include "cli/commands.hpp"
#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "matrix/select.hpp"
#include "packaging/wheel_repair.hpp"
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
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    packaging::RepairOptions repair;
    repair.wheel = options->wheel;
    repair.out_dir = options->out;
    if (!options->plat.empty()) repair.platform = options->plat;
    repair.local = options->local;
    repair.version = options->version;
    const auto result = packaging::repair_wheel(repair);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      runtime.out << Json{{"wheel", result->output.string()},
                          {"version", result->version},
                          {"tags", result->tags},
                          {"copied", result->copied},
                          {"rewritten", result->rewritten},
                          {"elf_files", result->elf_files}}
                         .dump(2)
                  << '\n';
    } else {
      runtime.out << result->output.string() << '\n'
                  << "  version " << result->version << ", tags " << core::join(result->tags, ", ") << '\n'
                  << "  " << result->copied << " entries copied compressed, " << result->rewritten
                  << " rewritten, " << result->elf_files << " ELF files checked\n";
    }
    finish(runtime, {});
  });
}

void register_wheel_verify(CLI::App& group, Runtime& runtime) {
  auto wheel = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(
      "verify", "Check every RECORD hash and size; refuse absolute, '..' and duplicate entries");
  command->add_option("wheel", *wheel, "The wheel to verify")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, wheel] {
    const auto result = packaging::verify_wheel(*wheel);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json)
      runtime.out << Json{{"wheel", *wheel},
                          {"entries", result->entries},
                          {"hashed", result->hashed},
                          {"bytes", result->bytes}}
                         .dump(2)
                  << '\n';
    else
      runtime.out << *wheel << ": OK (" << result->hashed << " entries, " << result->bytes
                  << " bytes hashed)\n";
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
      runtime.out << Json{{"filename", r->filename},   {"name", r->name},
                          {"version", r->version},     {"tags", r->tags},
                          {"dist_info", r->dist_info}, {"files", r->files},
                          {"elf_files", r->elf_files}, {"symbol_versions", r->glibc_versions},
                          {"needed", r->needed}}
                         .dump(2)
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

// ---- runners and build ----

builders::DetectOptions detect_options(Runtime& runtime) {
  builders::DetectOptions options;
  // The system interpreters first: they come with their distribution's development headers.
  options.search_dirs.emplace_back("/usr/bin");
  const auto path = runtime.getenv("PATH").value_or("/usr/bin:/bin");
  for (auto dir : core::split(path, ':'))
    if (!dir.empty() && dir != "/usr/bin") options.search_dirs.emplace_back(std::string(dir));
  options.toolkit_dirs = {"/usr/local/cuda/bin", "/opt/rocm/bin", "/opt/intel/oneapi/compiler/latest/bin"};
  options.cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return options;
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
      << runner.gpus << " GPUs\n"
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
  bool plan = false, resume = false, dry_run = false, fail_fast = false;
};

Result<builders::BuildOptions> prepare_build(const BuildCliOptions& cli, Runtime& runtime) {
  auto spec = matrix::load_spec(cli.config);
  if (!spec) return tl::unexpected(spec.error());
  auto config = builders::load_build_config(cli.config);
  if (!config) return tl::unexpected(config.error());
  auto expansion = matrix::expand(*spec, cli.channel);
  if (!expansion) return tl::unexpected(expansion.error());
  if (auto ok = matrix::apply_selection(*expansion, cli.selection); !ok) return tl::unexpected(ok.error());
  builders::BuildOptions options;
  for (auto& cell : expansion->cells) {
    if (cli.cells.empty() ||
        std::find(cli.cells.begin(), cli.cells.end(), std::string(cell.id())) != cli.cells.end())
      options.cells.push_back(cell);
  }
  if (options.cells.empty())
    return fail(ErrorCategory::nothing_selected,
                "no cell of " + cli.config + " matches --cell " + core::join(cli.cells, ", "));
  options.config = std::move(*config);
  if (cli.version) options.config.version = *cli.version;
  if (cli.state_dir) options.config.state_dir = *cli.state_dir;
  auto local = builders::detect_local_runner(detect_options(runtime));
  if (!local) return tl::unexpected(local.error());
  options.runners.push_back(std::move(*local));
  for (const auto& runner : options.config.runners) options.runners.push_back(runner);
  options.jobs = cli.jobs;
  options.cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.resume = cli.resume ? builders::Resume::yes : builders::Resume::no;
  options.dry_run = cli.dry_run ? builders::DryRun::yes : builders::DryRun::no;
  options.keep_going = cli.fail_fast ? builders::KeepGoing::no : builders::KeepGoing::yes;
  options.path_env = runtime.getenv("PATH").value_or("/usr/bin:/bin");
  platform::ProcessSpec git;
  git.argv = {"git", "-C", options.config.config_dir.string(), "rev-parse", "HEAD"};
  if (auto head = platform::run_process(git); head && head->exit_code == 0)
    options.source_key = std::string(core::trim(head->out));
  options.now_unix = [] {
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
  };
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
    runtime.out << Json{{"cells", cells}}.dump(2) << '\n';
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
    for (const auto& o : outcomes)
      cells.push_back({{"cell", o.cell},
                       {"runner", o.runner},
                       {"result", builders::cell_result_name(o.result)},
                       {"duration_ms", o.duration_ms},
                       {"wheel", o.wheel},
                       {"log", o.log},
                       {"message", o.message},
                       {"log_tail", o.log_tail}});
    runtime.out << Json{{"cells", cells}}.dump(2) << '\n';
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
      runtime.out << Json{{"runners", all}}.dump(2) << '\n';
    } else {
      for (const auto& runner : runners) print_runner(runtime.out, runner);
    }
    finish(runtime, {});
  });
}

void register_build(CLI::App& command, Runtime& runtime) {
  auto cli = std::make_shared<BuildCliOptions>();
  command.add_option("--config", cli->config,
                     "The relforge.toml with [matrix] and [recipe] (default: ./relforge.toml)");
  command.add_option("--channel", cli->channel, "The channel to expand (nightly, test, release)");
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
  command.add_flag("--keep-going,!--fail-fast", cli->fail_fast,
                   "Go on after a failing cell (default) or stop");
  add_json_flag(command, runtime);
  command.callback([&runtime, cli] {
    auto options = prepare_build(*cli, runtime);
    if (!options) return report_error(runtime, options.error());
    if (cli->plan) {
      print_plan(runtime, *options);
      return finish(runtime, {});
    }
    const auto start = std::chrono::steady_clock::now();
    options->on_line = [&runtime, start](const std::string& line) {
      const auto elapsed =
          std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
      const std::time_t now = std::time(nullptr);
      std::tm tm{};
      gmtime_r(&now, &tm);
      runtime.err << std::put_time(&tm, "%H:%M:%S") << " [+" << elapsed << "s] " << line << std::endl;
    };
    auto outcomes = builders::run_build(*options);
    if (!outcomes) return report_error(runtime, outcomes.error());
    print_summary(runtime, *outcomes);
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
}

}  // namespace relforge::cli
