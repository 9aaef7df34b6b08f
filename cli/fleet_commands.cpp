// `relforge images render|plan|lock` and `relforge runners render|check`: the builder fleet.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "matrix/select.hpp"
#include "platform/fs.hpp"
#include "runner_images/dockerfile.hpp"
#include "runner_images/fleet.hpp"
#include "runner_images/plan.hpp"
#include "runner_images/runners.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
namespace ri = runner_images;
using Json = nlohmann::ordered_json;

constexpr const char* k_default_render_dir = ".relforge/images";

std::string counted(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

struct FleetSource {
  std::string config = "relforge.toml";
  std::optional<std::string> channel;  // unset: every channel of the config
};

struct LoadedFleet {
  matrix::MatrixSpec spec;
  ri::FleetSpec fleet;
  std::vector<matrix::Expansion> expansions;
};

Result<LoadedFleet> load(const FleetSource& source, const matrix::Selection& selection = {}) {
  LoadedFleet out;
  auto spec = matrix::load_spec(source.config);
  if (!spec) return tl::unexpected(spec.error());
  out.spec = std::move(*spec);
  auto fleet = ri::load_fleet(source.config, out.spec);
  if (!fleet) return tl::unexpected(fleet.error());
  if (!*fleet) {
    return fail(ErrorCategory::invalid_input,
                source.config +
                    " has no [fleet] table: define builder images and runner "
                    "classes there, or in a file it includes (see docs/fleet.md)");
  }
  out.fleet = std::move(**fleet);
  const std::vector<std::string> channels =
      source.channel ? std::vector<std::string>{*source.channel} : out.spec.channels;
  for (const auto& channel : channels) {
    auto expansion = matrix::expand(out.spec, channel);
    if (!expansion && expansion.error().category() == ErrorCategory::nothing_selected && !source.channel)
      continue;
    if (!expansion) return tl::unexpected(expansion.error());
    if (auto ok = matrix::apply_selection(*expansion, selection); !ok) return tl::unexpected(ok.error());
    out.expansions.push_back(std::move(*expansion));
  }
  return out;
}

void add_source(CLI::App& command, FleetSource& source, const char* channel_help) {
  command.add_option("--config", source.config, "The relforge.toml to read")->capture_default_str();
  command.add_option("--channel", source.channel, channel_help);
}

// The registry's failures become one error after the plan is printed: 401/403 → auth, else network.
std::optional<Error> registry_error(const std::vector<ri::ImagePlan>& plans) {
  std::size_t unknown = 0;
  const ri::ImagePlan* first = nullptr;
  for (const auto& plan : plans) {
    if (plan.answer.status != ri::TagStatus::unknown) continue;
    if (unknown++ == 0) first = &plan;
  }
  if (first == nullptr) return std::nullopt;
  const long status = first->answer.http_status;
  const auto category = status == 401 || status == 403 ? ErrorCategory::auth : ErrorCategory::network;
  return Error(category, std::to_string(unknown) + " of " + std::to_string(plans.size()) +
                             " tags could not be checked (status unknown); the first, " +
                             first->context.reference() + ": " + first->answer.problem);
}

Json plan_json(const ri::ImagePlan& plan, std::string_view render_dir) {
  Json entry = {{"name", plan.context.name},
                {"variant", plan.context.variant},
                {"tag", plan.context.tag},
                {"reference", plan.context.reference()},
                {"cells", plan.cells},
                {"channels", plan.channels},
                {"status", std::string(ri::status_name(plan.answer.status))},
                {"digest", plan.answer.digest.empty() ? Json(nullptr) : Json(plan.answer.digest)}};
  if (!plan.answer.problem.empty()) entry["problem"] = plan.answer.problem;
  if (plan.answer.status == ri::TagStatus::missing) entry["commands"] = ri::build_commands(plan, render_dir);
  return entry;
}

void print_plan(Runtime& runtime, const std::vector<ri::ImagePlan>& plans, std::string_view render_dir,
                bool checked) {
  if (runtime.json) {
    Json all = Json::array();
    for (const auto& plan : plans) all.push_back(plan_json(plan, render_dir));
    runtime.out << json_text(all) << '\n';
    return;
  }
  std::size_t width = 0;
  for (const auto& plan : plans) width = std::max(width, plan.context.reference().size());
  std::size_t missing = 0, present = 0;
  for (const auto& plan : plans) {
    const auto reference = plan.context.reference();
    runtime.out << reference << std::string(width + 2 - reference.size(), ' ')
                << ri::status_name(plan.answer.status) << "  " << plan.cells
                << (plan.cells == 1 ? " cell  " : " cells  ") << core::join(plan.channels, ",");
    if (!plan.answer.digest.empty()) runtime.out << "  " << plan.answer.digest;
    runtime.out << '\n';
    if (plan.answer.status == ri::TagStatus::missing) ++missing;
    if (plan.answer.status == ri::TagStatus::present) ++present;
  }
  runtime.out << plans.size() << " images";
  if (!checked) {
    runtime.out << " (not checked: pass --check-registry URL to find the missing ones)\n";
    return;
  }
  runtime.out << ": " << present << " present, " << missing << " missing, "
              << plans.size() - present - missing << " unknown\n";
  if (missing == 0) return;
  runtime.out
      << "\n# build and push the missing images (render the contexts first: relforge images render --out "
      << render_dir << ")\n";
  for (const auto& plan : plans) {
    if (plan.answer.status != ri::TagStatus::missing) continue;
    for (const auto& command : ri::build_commands(plan, render_dir)) runtime.out << command << '\n';
  }
}

void register_render(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<FleetSource>();
  auto out = std::make_shared<std::string>(k_default_render_dir);
  CLI::App* command = group.add_subcommand(
      "render", "Write one multi-stage Dockerfile (base, toolkit, final) per image, with its scripts");
  command->add_option("--config", source->config, "The relforge.toml to read")->capture_default_str();
  command->add_option("--out", *out, "Folder for the build contexts (<out>/<name>/<variant>/)")
      ->capture_default_str();
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, out] {
    auto spec = matrix::load_spec(source->config);
    if (!spec) return report_error(runtime, spec.error());
    auto fleet = ri::load_fleet(source->config, *spec);
    if (!fleet) return report_error(runtime, fleet.error());
    if (!*fleet)
      return report_error(runtime, Error(ErrorCategory::invalid_input,
                                         source->config + " has no [fleet] table (see docs/fleet.md)"));
    std::vector<ri::BuildContext> contexts;
    for (const auto& image : (*fleet)->images) {
      auto context = ri::build_context(**fleet, image);
      if (!context) return report_error(runtime, context.error());
      contexts.push_back(std::move(*context));
    }
    Json all = Json::array();
    for (const auto& context : contexts) {
      auto written = ri::write_context(context, *out);
      if (!written) return report_error(runtime, written.error());
      all.push_back({{"reference", context.reference()},
                     {"dir", (fs::path(*out) / context.dir).string()},
                     {"files", written->size()}});
    }
    if (runtime.json) {
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& item : all)
        runtime.out << item["reference"].get<std::string>() << "  " << item["dir"].get<std::string>() << '\n';
      runtime.out << contexts.size() << " images rendered under " << *out << '\n';
    }
    finish(runtime, {});
  });
}

void register_plan(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<FleetSource>();
  auto registry = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>(k_default_render_dir);
  CLI::App* command =
      group.add_subcommand("plan", "List the images the matrix needs, with content-addressed tags");
  add_source(*command, *source, "Plan for one channel (default: every channel)");
  command->add_option("--check-registry", *registry,
                      "Registry base URL (https://ghcr.io): HEAD /v2/<name>/manifests/<tag> for each tag");
  command->add_option("--out", *out, "Where the build contexts are rendered (for the printed commands)")
      ->capture_default_str();
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, registry, out] {
    auto loaded = load(*source);
    if (!loaded) return report_error(runtime, loaded.error());
    auto plans = ri::plan_images(loaded->fleet, loaded->expansions);
    if (!plans) return report_error(runtime, plans.error());
    if (!registry->empty()) ri::check_registry(*plans, *registry);
    print_plan(runtime, *plans, *out, !registry->empty());
    if (auto error = registry_error(*plans)) return report_error(runtime, *error);
    finish(runtime, {});
  });
}

void register_lock(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<FleetSource>();
  auto selection = std::make_shared<matrix::Selection>();
  auto registry = std::make_shared<std::string>();
  auto state_dir = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(
      "lock", "Record each cell's runner class, image tag and digest in <state dir>/images.lock.json");
  command->add_option("--config", source->config, "The relforge.toml to read")->capture_default_str();
  command->add_option("--channel", source->channel, "The channel of the run (default nightly)");
  command->add_option("--select", selection->select,
                      "Keep cells whose build_id matches this glob (repeatable)");
  command->add_option("--skip", selection->skip, "Drop cells whose build_id matches this glob (repeatable)");
  command->add_option("--check-registry", *registry, "Registry base URL: record each tag's digest");
  command->add_option("--state-dir", *state_dir, "Where the build ledger lives (default: [build] state_dir)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source, selection, registry, state_dir] {
    FleetSource resolved = *source;
    if (!resolved.channel) resolved.channel = "nightly";
    auto loaded = load(resolved, *selection);
    if (!loaded) return report_error(runtime, loaded.error());
    auto plans = ri::plan_images(loaded->fleet, loaded->expansions);
    if (!plans) return report_error(runtime, plans.error());
    if (!registry->empty()) ri::check_registry(*plans, *registry);
    // A lock with digests the registry did not give would replace a good one: the old lock stays.
    if (auto error = registry_error(*plans))
      return report_error(runtime,
                          error->with_context("nothing was written; the previous lock, if any, stays"));
    auto text = ri::render_lock(loaded->fleet, loaded->expansions.front(), *plans,
                                {resolved.config, *resolved.channel, *registry});
    if (!text) return report_error(runtime, text.error());
    const fs::path dir = state_dir->empty() ? loaded->fleet.state_dir : fs::path(*state_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path path = dir / ri::k_lock_file;
    if (auto ok = platform::write_file_atomic(path, *text); !ok) return report_error(runtime, ok.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"lock", path.string()},
                                    {"cells", loaded->expansions.front().cells.size()},
                                    {"images", plans->size()}})
                  << '\n';
    } else {
      runtime.out << "locked " << loaded->expansions.front().cells.size() << " cells on " << *resolved.channel
                  << " to " << plans->size() << " images: " << path.string() << '\n';
    }
    finish(runtime, {});
  });
}

void register_runners_render(CLI::App& group, Runtime& runtime) {
  auto config = std::make_shared<std::string>("relforge.toml");
  auto format = std::make_shared<std::string>("scale-config");
  auto out = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(
      "render", "Write the autoscaler's scale-config.yml or ARC scale-set Helm values (one per class)");
  command->add_option("--config", *config, "The relforge.toml to read")->capture_default_str();
  command->add_option("--format", *format, "scale-config or arc")->capture_default_str();
  command->add_option("--out", *out, "Folder to write into (default: print to stdout)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, config, format, out] {
    if (*format != "scale-config" && *format != "arc") {
      return report_error(runtime, Error(ErrorCategory::invalid_input,
                                         "unknown --format '" + *format + "': use scale-config or arc"));
    }
    auto loaded = load({*config, std::nullopt});
    if (!loaded) return report_error(runtime, loaded.error());
    std::vector<ri::ArcValues> documents;
    std::vector<std::string> skipped;
    if (*format == "scale-config") {
      documents.push_back({"scale-config.yml", ri::render_scale_config(loaded->fleet)});
    } else {
      auto arc = ri::render_arc(loaded->fleet, skipped);
      if (!arc) return report_error(runtime, arc.error());
      documents = std::move(*arc);
    }
    Json written = Json::array();
    if (!out->empty()) {
      std::error_code ec;
      fs::create_directories(*out, ec);
      for (const auto& document : documents) {
        const fs::path path = fs::path(*out) / document.file;
        if (auto ok = platform::write_file_atomic(path, document.yaml); !ok)
          return report_error(runtime, ok.error());
        written.push_back(path.string());
      }
    }
    for (const auto& label : skipped)
      runtime.err << "relforge: note: runner class '" << label
                  << "' is not Linux: ARC scale sets run on Kubernetes "
                  << "Linux nodes, so it has no values file\n";
    if (runtime.json) {
      runtime.out << json_text(Json{{"format", *format}, {"written", written}, {"skipped", skipped}}) << '\n';
    } else if (out->empty()) {
      for (std::size_t i = 0; i < documents.size(); ++i)
        runtime.out << (i > 0 ? "---\n" : "") << documents[i].yaml;
    } else {
      for (const auto& path : written) runtime.out << "wrote " << path.get<std::string>() << '\n';
    }
    finish(runtime, {});
  });
}

void register_runners_check(CLI::App& group, Runtime& runtime) {
  auto source = std::make_shared<FleetSource>();
  CLI::App* command = group.add_subcommand(
      "check",
      "Check the runner classes against the matrix: labels exist and fit ARC, GPU cells on GPU classes");
  add_source(*command, *source, "Check one channel (default: every channel)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, source] {
    auto loaded = load(*source);
    if (!loaded) return report_error(runtime, loaded.error());
    auto report = ri::check_runners(loaded->fleet, loaded->expansions);
    if (!report) return report_error(runtime, report.error());
    if (runtime.json) {
      Json classes = Json::array();
      for (const auto& use : report->uses)
        classes.push_back({{"label", use.label}, {"cells", use.cells}, {"gpu_cells", use.gpu_cells}});
      Json findings = Json::array();
      for (const auto& finding : report->findings)
        findings.push_back({{"severity", finding.severity == ri::Severity::error ? "error" : "warning"},
                            {"message", finding.message}});
      runtime.out << json_text(Json{{"cells", report->cells},
                                    {"classes", classes},
                                    {"findings", findings},
                                    {"errors", report->errors()},
                                    {"warnings", report->warnings()}})
                  << '\n';
    } else {
      std::size_t width = 0;
      for (const auto& use : report->uses) width = std::max(width, use.label.size());
      for (const auto& use : report->uses) {
        runtime.out << use.label << std::string(width + 2 - use.label.size(), ' ') << use.cells << " cells ("
                    << use.gpu_cells << " GPU)\n";
      }
      for (const auto& finding : report->findings)
        runtime.out << (finding.severity == ri::Severity::error ? "error: " : "warning: ") << finding.message
                    << '\n';
      runtime.out << report->cells << " cells on " << report->uses.size()
                  << " runner classes: " << counted(report->errors(), "error") << ", "
                  << counted(report->warnings(), "warning") << '\n';
    }
    runtime.exit_code = report->errors() > 0 ? k_exit_false : k_exit_ok;
  });
}

}  // namespace

void register_images(CLI::App& group, Runtime& runtime) {
  register_render(group, runtime);
  register_plan(group, runtime);
  register_lock(group, runtime);
}

void register_runner_classes(CLI::App& runners_group, Runtime& runtime) {
  register_runners_render(runners_group, runtime);
  register_runners_check(runners_group, runtime);
}

}  // namespace relforge::cli
