#include "cli/verify_rebuild.hpp"

#include <system_error>

#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "cli/build_setup.hpp"
#include "core/text.hpp"
#include "packaging/wheel_name.hpp"
#include "platform/digest.hpp"
#include "platform/private_dir.hpp"
#include "platform/process.hpp"
#include "signing/file_bytes.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

Result<platform::ProcessResult> git(const fs::path& dir, std::vector<std::string> args) {
  platform::ProcessSpec spec;
  spec.argv = {"git", "-C", dir.string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::minutes(10);
  return platform::run_process(spec);
}

// "2026-01-02T03:04:05Z" -> unix seconds; nullopt for anything else.
std::optional<std::int64_t> unix_of(const std::string& text) {
  int y, mo, d, h, mi, s;
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z) != 7 || z != 'Z')
    return std::nullopt;
  // Days from civil (Howard Hinnant's algorithm).
  y -= mo <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const std::int64_t days = static_cast<std::int64_t>(era) * 146097 + doe - 719468;
  return days * 86400 + h * 3600 + mi * 60 + s;
}

struct Provenance {
  std::string cell, build_id, channel, commit, image;
  std::int64_t build_ms = 0;
};

// A member of a JSON object, or null: a signed statement is checked for shape, not for the types
// inside its predicate, so nothing here may throw on a number where a string was expected.
const nlohmann::json& provenance_member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json k_absent;
  if (object.is_object() && object.contains(key)) return object[key];
  return k_absent;
}

std::string provenance_text(const nlohmann::json& object, const char* key, std::string fallback = {}) {
  const auto& value = provenance_member(object, key);
  return value.is_string() ? value.get<std::string>() : fallback;
}

Result<Provenance> read_provenance(const signing::VerifiedBundle& bundle, const std::string& wheel) {
  const auto& predicate = provenance_member(bundle.statement, "predicate");
  const auto& definition = provenance_member(predicate, "buildDefinition");
  const auto& external = provenance_member(definition, "externalParameters");
  const auto& cell = provenance_member(external, "cell");
  Provenance out;
  out.cell = provenance_text(cell, "id");
  out.build_id = provenance_text(cell, "build_id");
  out.channel = provenance_text(external, "channel", "nightly");
  const auto& dependencies = provenance_member(definition, "resolvedDependencies");
  for (const auto& dependency : dependencies.is_array() ? dependencies : nlohmann::json::array()) {
    const auto& digest = provenance_member(dependency, "digest");
    if (digest.is_object() && digest.contains("gitCommit"))
      out.commit = provenance_text(digest, "gitCommit");
    else if (const std::string uri = provenance_text(dependency, "uri");
             !uri.ends_with(".json") && out.image.empty())
      out.image = uri;
  }
  const auto& metadata = provenance_member(provenance_member(predicate, "runDetails"), "metadata");
  const auto started = unix_of(provenance_text(metadata, "startedOn")),
             finished = unix_of(provenance_text(metadata, "finishedOn"));
  if (started && finished && *finished >= *started) out.build_ms = (*finished - *started) * 1000;
  if (out.cell.empty() || out.build_id.empty() || out.commit.empty())
    return fail(
        ErrorCategory::not_found,
        "no provenance to rebuild from: the provenance of " + wheel + " names no " +
            (out.commit.empty() ? "source commit" : "matrix cell") +
            "; only wheels signed by `relforge nightly --key` (or `relforge sign` with --source-commit "
            "and a cell) can be rebuilt");
  return out;
}

Status check_image(const builders::BuildOptions& build, const std::string& image) {
  if (image.empty()) return {};
  const auto runtime = build.config.container.runtime;
  if (runtime == builders::ContainerRuntime::none)
    return fail(
        ErrorCategory::not_found,
        "builder image not available: the wheel was built in " + image +
            " but the config at that commit builds on the host ([build] container = \"none\"), so the "
            "rebuild would not use the same image");
  platform::ProcessSpec inspect;
  inspect.argv = {builders::container_runtime_name(runtime), "image", "inspect", image};
  inspect.environment_mode = platform::EnvironmentMode::clean;
  inspect.environment = {{"PATH", build.path_env}};
  inspect.timeout = std::chrono::minutes(2);
  auto found = platform::run_process(inspect);
  if (!found || found->exit_code != 0)
    return fail(ErrorCategory::not_found,
                "builder image not available: " + image + " is not on this host (" +
                    builders::container_runtime_name(runtime) +
                    " image inspect failed): pull it, or rebuild it with relforge images");
  return {};
}

std::string matrix_channel(const std::string& channel) {
  return channel == "stable" ? "release" : channel;
}

}  // namespace

Result<RebuildResult> verify_rebuild(const RebuildOptions& options, const signing::VerifiedBundle& bundle) {
  const auto started = options.monotonic_ms ? options.monotonic_ms() : 0;
  auto provenance = read_provenance(bundle, options.wheel.string());
  if (!provenance) return tl::unexpected(provenance.error());
  RebuildResult out;
  out.cell = provenance->cell;
  out.commit = provenance->commit;
  out.image = provenance->image;
  out.original_build_ms = provenance->build_ms;

  // The commit goes on git's command line: only a full hex object id, never something git would
  // read as an option or a revision expression.
  if ((out.commit.size() != 40 && out.commit.size() != 64) ||
      out.commit.find_first_not_of("0123456789abcdef") != std::string::npos)
    return fail(ErrorCategory::invalid_input, "the provenance of " + options.wheel.string() +
                                                  " names source commit '" + out.commit +
                                                  "', which is not a full hex commit id");
  const fs::path config = fs::absolute(options.config).lexically_normal();
  auto top = git(config.parent_path(), {"rev-parse", "--show-toplevel"});
  if (!top || top->exit_code != 0)
    return fail(ErrorCategory::not_found,
                config.parent_path().string() +
                    " is not in a git repository: run verify --rebuild with --config "
                    "in a clone of the wheel's source repository");
  const fs::path repository = std::string(core::trim(top->out));
  const fs::path relative = fs::relative(fs::weakly_canonical(config), fs::weakly_canonical(repository));
  auto known = git(repository, {"cat-file", "-e", out.commit + "^{commit}"});
  if (!known || known->exit_code != 0)
    return fail(ErrorCategory::not_found, "commit " + out.commit +
                                              " (the wheel's source) is not in the repository " +
                                              repository.string() + ": fetch it (git fetch origin " +
                                              out.commit + ") and verify again");

  std::error_code ec;
  if (options.work) {
    out.work = fs::absolute(*options.work);
    // A folder the user named is used only when empty: its removal afterwards must not take anything else.
    if (fs::exists(out.work, ec) && !fs::is_empty(out.work, ec))
      return fail(ErrorCategory::conflict,
                  "--work " + out.work.string() +
                      " is not empty: name a new or empty folder (it is removed after a "
                      "reproduced rebuild)");
    fs::create_directories(out.work, ec);
    if (ec)
      return fail(ErrorCategory::io,
                  "cannot create the rebuild folder " + out.work.string() + ": " + ec.message());
  } else {
    auto made = platform::PrivateDir::create("relforge-rebuild-", "for the rebuild");
    if (!made) return tl::unexpected(made.error());
    made->keep();  // Cleanup below removes it, or keeps it as a failed rebuild's evidence
    out.work = made->path();
  }
  // The work dir goes away on every way out but two: a failed rebuild and a differing wheel keep
  // their evidence (the log, the rebuilt wheel) for the person reading the report.
  struct Cleanup {
    fs::path dir;
    bool keep = false;
    ~Cleanup() {
      std::error_code ignored;
      if (!keep) fs::remove_all(dir, ignored);
    }
  } cleanup{out.work};
  const fs::path source = out.work / "src";
  options.on_line("cloning " + out.commit + " into " + source.string());
  auto cloned = git(out.work, {"clone", "--quiet", "--no-checkout", repository.string(), source.string()});
  auto checked_out = cloned && cloned->exit_code == 0
                         ? git(source, {"checkout", "--quiet", "--detach", out.commit})
                         : cloned;
  if (!checked_out || checked_out->exit_code != 0)
    return fail(ErrorCategory::io, "cannot check out " + out.commit + " into " + source.string() + ": " +
                                       (checked_out ? std::string(core::trim(checked_out->err))
                                                    : checked_out.error().describe()));
  if (!fs::is_regular_file(source / relative, ec))
    return fail(ErrorCategory::not_found,
                "cell no longer in the matrix: commit " + out.commit + " has no " + relative.string());

  BuildSetup setup;
  setup.config = (source / relative).string();
  setup.channel = matrix_channel(provenance->channel);
  setup.selection.select = {provenance->build_id};
  setup.state_dir = (out.work / "state").string();
  setup.path_env = options.path_env;
  setup.getenv = options.getenv;
  auto build = prepare_build_options(setup);
  if (!build && build.error().category() == ErrorCategory::nothing_selected)
    return fail(ErrorCategory::not_found, "cell no longer in the matrix: " + out.cell + " (" +
                                              provenance->build_id + ") is not a cell of " +
                                              relative.string() + " at " + out.commit);
  if (!build) return tl::unexpected(build.error());
  if (build->cells.size() != 1 || build->cells.front().id() != out.cell)
    return fail(ErrorCategory::not_found, "cell no longer in the matrix: no cell " + out.cell +
                                              " with build id " + provenance->build_id + " in " +
                                              relative.string() + " at " + out.commit);
  if (auto ok = check_image(*build, out.image); !ok) return tl::unexpected(ok.error());
  auto name = packaging::parse_wheel_filename(options.wheel.filename().string());
  if (!name) return tl::unexpected(name.error());
  build->config.version = name->version.public_string();
  build->on_line = options.on_line;
  options.on_line("rebuilding " + out.cell + " (" + build->config.version + ") from " + out.commit);
  auto cells = builders::run_build(*build);
  if (!cells) return tl::unexpected(cells.error());
  const auto& cell = cells->front();
  cleanup.keep = cell.result != builders::CellResult::succeeded;
  if (cleanup.keep)
    return fail(ErrorCategory::io, "the rebuild of " + out.cell + " did not succeed (" +
                                       builders::cell_result_name(cell.result) + ": " + cell.message +
                                       "; log: " + cell.log + ")");
  out.rebuilt = cell.wheel;
  // The bytes compared are a copy whose sha256 is the one verified: a wheel replaced after its
  // signature was checked is never the one reported as reproduced.
  const fs::path compared = out.work / "signed" / options.wheel.filename();
  if (!fs::is_regular_file(options.wheel, ec) || !fs::create_directories(compared.parent_path(), ec) ||
      !fs::copy_file(options.wheel, compared, ec))
    return fail(ErrorCategory::io, "cannot copy " + options.wheel.string() + " to " + compared.string() +
                                       " for the comparison: " + (ec ? ec.message() : "not a regular file"));
  auto copied = signing::sha256_of_regular_file(compared);
  if (!copied) return tl::unexpected(copied.error());
  if (*copied != bundle.subject.sha256)
    return fail(ErrorCategory::integrity,
                options.wheel.string() + " changed after its signature was verified (sha256 " + *copied +
                    ", verified " + bundle.subject.sha256 + "): nothing was compared; verify it again");
  auto diff = packaging::diff_wheels(compared, out.rebuilt);
  if (!diff) return tl::unexpected(diff.error());
  out.diff = std::move(*diff);
  out.reproduced = out.diff.identical;
  cleanup.keep = !out.reproduced;
  if (out.reproduced) out.rebuilt.clear();
  out.rebuild_ms = options.monotonic_ms ? options.monotonic_ms() - started : 0;
  return out;
}

}  // namespace relforge::cli
