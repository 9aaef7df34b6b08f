// `relforge nightly`: build, repair, smoke-test, sign and publish the selected cells.
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/build_setup.hpp"
#include "cli/commands.hpp"
#include "cli/nightly_pipeline.hpp"
#include "core/text.hpp"
#include "core/time.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string seconds_text(std::int64_t ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << static_cast<double>(ms) / 1000.0 << " s";
  return out.str();
}

bool is_failure(const builders::CellOutcome& cell) {
  return cell.result == builders::CellResult::failed || cell.result == builders::CellResult::timed_out;
}

Json output_json(const NightlyOutput& out) {
  Json cells = Json::array(), signed_wheels = Json::array(), published = Json::array();
  for (const auto& o : out.cells) cells.push_back(outcome_json(o));
  for (const auto& s : out.signed_wheels)
    signed_wheels.push_back({{"wheel", s.wheel}, {"bundle", s.bundle}, {"key_id", s.key_id}});
  for (const auto& f : out.published)
    published.push_back({{"filename", f.filename},
                         {"variant", f.variant},
                         {"project", f.project},
                         {"version", f.version},
                         {"sha256", f.sha256},
                         {"signed", f.signed_bundle},
                         {"state", f.state == channels::PublishState::added ? "added" : "unchanged"}});
  return {{"version", out.version},  {"version_source", out.version_source},
          {"built", out.built},      {"waiting", out.waiting},
          {"failed", out.failed},    {"cells", cells},
          {"signed", signed_wheels}, {"published", published},
          {"install", out.install}};
}

void print_output(std::ostream& os, const NightlyOutput& out, const std::string& channel) {
  os << "nightly " << out.version << " (base from " << out.version_source << ")\n\n";
  os << std::left << std::setw(14) << "cell" << std::setw(10) << "runner" << std::setw(22) << "result"
     << std::setw(10) << "duration"
     << "wheel / note\n";
  for (const auto& o : out.cells) {
    os << std::left << std::setw(14) << o.cell << std::setw(10) << (o.runner.empty() ? "-" : o.runner)
       << std::setw(22) << builders::cell_result_name(o.result) << std::setw(10)
       << (o.duration_ms ? seconds_text(o.duration_ms) : "-") << (o.wheel.empty() ? o.message : o.wheel)
       << '\n';
  }
  for (const auto& o : out.cells) {
    if (!is_failure(o)) continue;
    os << "\n== " << o.cell << ": " << o.message << "\n   last lines of " << o.log << ":\n";
    for (const auto& line : o.log_tail) os << "   | " << line << '\n';
  }
  os << '\n'
     << out.built << " built (repaired and smoke-tested), " << out.waiting << " waiting for a runner, "
     << out.failed << " failed\n";
  for (const auto& s : out.signed_wheels) os << "signed    " << s.bundle << " (key " << s.key_id << ")\n";
  for (const auto& f : out.published)
    os << (f.state == channels::PublishState::added ? "published " : "unchanged ") << channel << "/"
       << f.variant << "/" << f.project << "/" << f.filename << (f.signed_bundle ? " (signed)" : "") << '\n';
  if (!out.install.empty()) os << "\ninstall with:\n";
  for (const auto& command : out.install) os << "  " << command << '\n';
}

struct NightlyCliOptions {
  NightlyOptions options;
  std::string date;
  bool resume = false;
};

}  // namespace

void register_nightly(CLI::App& command, Runtime& runtime) {
  auto cli = std::make_shared<NightlyCliOptions>();
  auto& o = cli->options;
  command.add_option("--config", o.config, "The relforge.toml (default: ./relforge.toml)");
  command.add_option("--root", o.root, "The channel store to publish into")->required();
  command.add_option("--channel", o.channel, "Channel to publish to (default nightly)");
  command.add_option("--select", o.selection.select, "Only cells whose build id matches a glob");
  command.add_option("--skip", o.selection.skip, "Skip cells whose build id matches a glob");
  command.add_option("--jobs,-j", o.jobs, "Cells built at once (default: the runner's slots)");
  command.add_option("--date", cli->date, "UTC build date YYYYMMDD of the version (default: today, UTC)");
  command.add_option("--key", o.key,
                     "Private key: sign every built wheel (provenance from the build ledger)");
  command.add_option("--public-key", o.public_key, "Public key of --key (default: its .pub sibling)");
  command.add_option("--state-dir", o.state_dir, "Ledger, logs, work dirs and wheels (default: [build])");
  command.add_option("--base-url", o.base_url,
                     "Where the root is served, for the printed pip command (default: file://ROOT)");
  command.add_flag("--resume", cli->resume, "Skip cells whose inputs are unchanged since they succeeded");
  add_json_flag(command, runtime);
  command.callback([&runtime, cli] {
    NightlyOptions options = cli->options;
    const core::Clock& clock = runtime.clock;
    options.date = cli->date.empty() ? core::utc_date_compact(clock.unix_seconds()) : cli->date;
    options.resume = cli->resume ? builders::Resume::yes : builders::Resume::no;
    options.path_env = runtime.getenv("PATH").value_or("/usr/bin:/bin");
    options.getenv = runtime.getenv;
    options.upload_time = core::rfc3339_utc(clock.unix_seconds());
    options.now_unix = [&clock] { return clock.unix_seconds(); };
    const std::int64_t start_ms = clock.monotonic_ms();
    options.on_line = [&runtime, &clock, start_ms](const std::string& line) {
      const std::int64_t elapsed = (clock.monotonic_ms() - start_ms) / 1000;
      runtime.err << core::utc_time_of_day(clock.unix_seconds()) << " [+" << elapsed << "s] " << line
                  << std::endl;
    };
    auto out = run_nightly(options);
    if (!out) return report_error(runtime, out.error());
    if (runtime.json)
      runtime.out << json_text(output_json(*out)) << '\n';
    else
      print_output(runtime.out, *out, options.channel);
    if (out->failed > 0) {
      return report_error(
          runtime, Error(ErrorCategory::io, std::to_string(out->failed) + " of " +
                                                std::to_string(out->built + out->failed) +
                                                " cells this machine can build failed (the others were "
                                                "published): see the summary and the logs above"));
    }
    finish(runtime, {});
  });
}

}  // namespace relforge::cli
