// `relforge keys generate`, `relforge sign` and `relforge verify`: key-based Sigstore bundles with
// in-toto/SLSA provenance, verifiable offline with the public key; `verify --rebuild` rebuilds the
// wheel from its provenance and compares the bytes.
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/verify_rebuild.hpp"
#include "cli/wheel_diff_render.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "runner_images/plan.hpp"
#include "signing/bundle.hpp"
#include "signing/file_bytes.hpp"
#include "signing/keys.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct SignOptions {
  std::vector<fs::path> files;
  fs::path key;
  std::optional<fs::path> provenance_from;
  std::optional<fs::path> images_lock;  // `relforge images lock` output, referenced in the provenance
  signing::BuildFacts facts;            // used when no ledger is given
};

// The lock becomes a resolved dependency; the cell's image tag and digest come from it when the
// facts do not name an image already.
Status apply_images_lock(const fs::path& lock, signing::BuildFacts& facts) {
  auto text = signing::read_regular_file(lock, signing::k_max_images_lock_bytes, "images lock",
                                         ErrorCategory::invalid_input,
                                         "an images lock is what `relforge images lock` writes");
  if (!text) return tl::unexpected(text.error());
  facts.images_lock = lock.generic_string();
  facts.images_lock_sha256 = platform::to_hex(platform::sha256(*text));
  if (!facts.image.empty() || !facts.cell.contains("id") || !facts.cell["id"].is_string()) return {};
  auto locked = runner_images::find_locked_image(*text, facts.cell["id"].get<std::string>(), lock.string());
  if (!locked) return tl::unexpected(locked.error());
  facts.image = locked->reference;
  const std::string prefix = "sha256:";
  facts.image_digest =
      locked->digest.rfind(prefix, 0) == 0 ? locked->digest.substr(prefix.size()) : locked->digest;
  return {};
}

struct SignedFile {
  fs::path file;
  fs::path bundle;
  std::string key_id;
};

// Each file a readable regular file, before any is signed: otherwise the files before a mistyped
// name were signed and the run still failed, without saying which were.
Status check_sign_inputs(const std::vector<fs::path>& files) {
  std::vector<std::string> missing;
  for (const auto& file : files) {
    auto readable = signing::check_regular_file(file);
    if (readable) continue;
    if (readable.error().category() != ErrorCategory::not_found)
      return tl::unexpected(Error(readable.error()).with_context("nothing was signed"));
    missing.push_back(file.string());
  }
  if (missing.empty()) return {};
  return fail(ErrorCategory::not_found,
              "no such file: " + core::join(missing, ", ") + " (nothing was signed; check the path)");
}

// Every bundle is made before the first is written, so an input refused on the way (a ledger
// without its entry, facts verify would refuse) leaves no file signed and others not.
Result<std::vector<SignedFile>> run_sign(const SignOptions& options) {
  auto key = signing::PrivateKey::load(options.key);
  if (!key) return tl::unexpected(key.error());
  if (auto inputs = check_sign_inputs(options.files); !inputs) return tl::unexpected(inputs.error());
  std::vector<SignedFile> out;
  std::vector<std::string> bundles;
  const auto refused = [](const Error& error, const fs::path& file) {
    return tl::unexpected(Error(error).with_context("signing " + file.string() + " (nothing was signed)"));
  };
  for (const auto& file : options.files) {
    signing::BuildFacts facts = options.facts;
    if (options.provenance_from) {
      auto loaded = signing::load_build_facts(*options.provenance_from, file.filename().string());
      if (!loaded) return refused(loaded.error(), file);
      facts = std::move(*loaded);
    }
    if (options.images_lock) {
      if (auto ok = apply_images_lock(*options.images_lock, facts); !ok) return refused(ok.error(), file);
    }
    auto bundle = signing::sign_file(file, *key, facts);
    if (!bundle) return refused(bundle.error(), file);
    out.push_back({file, file.string() + ".sigstore.json", key->key_id()});
    bundles.push_back(std::move(*bundle));
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (auto status = platform::write_file_atomic(out[i].bundle, bundles[i]); !status)
      return tl::unexpected(status.error());
  }
  return out;
}

struct VerifyOptions {
  std::vector<fs::path> files;
  fs::path key;
};

struct VerifyOutcome {
  fs::path file;
  std::optional<signing::VerifiedBundle> verified;
  std::optional<Error> problem;
  bool no_bundle = false;  // the file is there, its FILE.sigstore.json is not
};

Result<std::vector<VerifyOutcome>> run_verify(const VerifyOptions& options) {
  auto key = signing::PublicKey::load(options.key);
  if (!key) return tl::unexpected(key.error());
  std::vector<VerifyOutcome> out;
  for (const auto& file : options.files) {
    VerifyOutcome outcome{file, std::nullopt, std::nullopt};
    std::error_code error;
    if (fs::status(file, error).type() == fs::file_type::not_found) {
      outcome.problem = Error(ErrorCategory::not_found, "no such file: " + file.string());
    } else if (auto text = signing::read_bundle(file); !text) {
      outcome.no_bundle = text.error().category() == ErrorCategory::not_found;
      outcome.problem = text.error();
    } else if (auto verified = signing::verify_bundle(file, *text, *key)) {
      outcome.verified = std::move(*verified);
    } else {
      outcome.problem = verified.error();
    }
    out.push_back(std::move(outcome));
  }
  return out;
}

// One line per failed file. A file that fails a check makes the whole run an integrity failure (9);
// when none does, the first failure's own code stands (4 for a missing file, 6 for an unreadable one).
Error verify_failures(const std::vector<std::string>& lines, const std::vector<ErrorCategory>& categories) {
  auto category = categories.front();
  for (const auto each : categories)
    if (each == ErrorCategory::integrity) category = each;
  return Error(category, core::join(lines, "\n"));
}

void register_generate(CLI::App& group, Runtime& runtime) {
  auto type = std::make_shared<std::string>("ecdsa-p256");
  auto out_dir = std::make_shared<std::string>();
  CLI::App* command = group.add_subcommand(
      "generate", "Write DIR/signing.key (PEM, mode 0600) and DIR/signing.pub; prints the key id");
  command->add_option("--type", *type, "ecdsa-p256 (default) or ed25519");
  command->add_option("--out", *out_dir, "Directory for the key pair (created with mode 0700 when missing)")
      ->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, type, out_dir] {
    auto parsed = signing::parse_key_type(*type);
    if (!parsed) return report_error(runtime, parsed.error());
    auto key = signing::generate_key(*parsed, *out_dir);
    if (!key) return report_error(runtime, key.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"type", signing::key_type_name(key->type)},
                                    {"key_id", key->key_id},
                                    {"private_key", key->private_key.string()},
                                    {"public_key", key->public_key.string()}})
                  << '\n';
    } else {
      runtime.out << "key id:      " << key->key_id << "\nprivate key: " << key->private_key.string()
                  << " (mode 0600; keep it secret)\npublic key:  " << key->public_key.string() << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace

void register_keys(CLI::App& command, Runtime& runtime) {
  register_generate(command, runtime);
}

void register_sign(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<SignOptions>();
  auto cell = std::make_shared<std::string>();
  command.add_option("files", options->files, "Files to sign; each gets FILE.sigstore.json")->required();
  command.add_option("--key", options->key, "Private key (PEM, mode 0600)")->required();
  command.add_option(
      "--provenance-from", options->provenance_from,
      "Build ledger (JSON object, array or JSON lines; the entry whose \"wheel\" is the file)");
  command.add_option("--cell", *cell, "Matrix cell id for the provenance (without a ledger)");
  command.add_option("--channel", options->facts.channel, "Channel for the provenance");
  command.add_option("--source-commit", options->facts.source_commit, "Source commit (git sha)");
  command.add_option("--source-repository", options->facts.source_repository,
                     "Source URI (git+https://...@refs/...)");
  command.add_option("--builder-id", options->facts.builder_id, "Builder / runner URI");
  command.add_option("--image", options->facts.image, "Builder image");
  command.add_option(
      "--images-lock", options->images_lock,
      "The run's images lock (relforge images lock): a resolved dependency, and the cell's image");
  add_json_flag(command, runtime);
  command.callback([&runtime, options, cell] {
    if (!cell->empty()) options->facts.cell = {{"id", *cell}};
    auto signed_files = run_sign(*options);
    if (!signed_files) return report_error(runtime, signed_files.error());
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& item : *signed_files) {
        all.push_back(
            {{"file", item.file.string()}, {"bundle", item.bundle.string()}, {"key_id", item.key_id}});
      }
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& item : *signed_files)
        runtime.out << "signed " << item.file.string() << " -> " << item.bundle.string() << '\n';
    }
    finish(runtime, {});
  });
}

namespace {

Json rebuild_json(const VerifyOutcome& outcome, const RebuildResult& rebuilt) {
  Json out = {{"file", outcome.file.string()},
              {"verified", true},
              {"key_id", outcome.verified->key_id},
              {"sha256", outcome.verified->subject.sha256},
              {"cell", rebuilt.cell},
              {"commit", rebuilt.commit},
              {"image", rebuilt.image},
              {"reproduced", rebuilt.reproduced},
              {"rebuild_ms", rebuilt.rebuild_ms},
              {"original_build_ms", rebuilt.original_build_ms}};
  if (!rebuilt.reproduced) {
    out["rebuilt"] = rebuilt.rebuilt.string();
    out["diff"] = wheel_diff_json(rebuilt.diff);
  }
  return out;
}

// Each verified file is rebuilt in turn; a file whose bundle does not verify is not rebuilt.
void run_rebuilds(Runtime& runtime, const std::vector<VerifyOutcome>& outcomes, const fs::path& config,
                  const std::optional<fs::path>& work) {
  Json all = Json::array();
  std::vector<std::string> problems;
  std::vector<ErrorCategory> categories;
  for (const auto& outcome : outcomes) {
    if (!outcome.verified) {
      problems.push_back(outcome.file.string() + ": " + outcome.problem->message());
      categories.push_back(outcome.problem->category());
      continue;
    }
    RebuildOptions options;
    options.wheel = outcome.file;
    options.config = config;
    options.work = work;
    options.path_env = runtime.getenv("PATH").value_or("/usr/bin:/bin");
    options.getenv = runtime.getenv;
    options.monotonic_ms = [&runtime] { return runtime.clock.monotonic_ms(); };
    if (!runtime.json) options.on_line = [&runtime](const std::string& line) { runtime.err << line << '\n'; };
    auto rebuilt = verify_rebuild(options, *outcome.verified);
    if (!rebuilt) {
      // A named reason (no provenance, unknown commit, cell or image) ends the verification.
      return report_error(runtime,
                          Error(rebuilt.error()).with_context("verify --rebuild " + outcome.file.string()));
    }
    if (runtime.json) {
      all.push_back(rebuild_json(outcome, *rebuilt));
    } else if (rebuilt->reproduced) {
      runtime.out << "reproduced " << outcome.file.string() << " (cell " << rebuilt->cell << " from "
                  << rebuilt->commit << ", rebuilt in " << rebuilt->rebuild_ms / 1000.0 << " s)\n";
    } else {
      runtime.out << "NOT reproduced " << outcome.file.string() << " (cell " << rebuilt->cell << " from "
                  << rebuilt->commit << "); the rebuilt wheel is " << rebuilt->rebuilt.string() << ":\n";
      print_wheel_diff(runtime.out, rebuilt->diff);
    }
    if (!rebuilt->reproduced) {
      problems.push_back(outcome.file.string() +
                         ": not reproduced: " + packaging::summarize_diff(rebuilt->diff));
      categories.push_back(ErrorCategory::integrity);
    }
  }
  if (runtime.json) runtime.out << json_text(all) << '\n';
  if (!problems.empty()) return report_error(runtime, verify_failures(problems, categories));
  finish(runtime, {});
}

}  // namespace

void register_verify(CLI::App& command, Runtime& runtime) {
  auto options = std::make_shared<VerifyOptions>();
  auto rebuild = std::make_shared<bool>(false);
  auto config = std::make_shared<fs::path>("relforge.toml");
  auto work = std::make_shared<std::optional<fs::path>>();
  command.add_option("files", options->files, "Files to verify against FILE.sigstore.json")->required();
  command.add_option("--key", options->key, "Public key (PEM)")->required();
  command.add_flag("--rebuild", *rebuild,
                   "Also rebuild each wheel's cell from its provenance's source commit in a clean folder and "
                   "compare the bytes (exit 9 and the wheel diff when they differ); publishes nothing");
  command.add_option(
      "--config", *config,
      "With --rebuild: relforge.toml in a clone of the source repository (default relforge.toml)");
  command.add_option("--work", *work,
                     "With --rebuild: the folder to rebuild in (default: a new temp folder)");
  add_json_flag(command, runtime);
  command.callback([&runtime, options, rebuild, config, work] {
    auto outcomes = run_verify(*options);
    if (!outcomes) return report_error(runtime, outcomes.error());
    if (*rebuild) {
      for (const auto& outcome : *outcomes)
        if (outcome.no_bundle)
          return report_error(runtime,
                              Error(ErrorCategory::not_found,
                                    "wheel without provenance: " + outcome.file.string() + " has no " +
                                        outcome.file.filename().string() +
                                        ".sigstore.json beside it, so there is nothing to rebuild from"));
      return run_rebuilds(runtime, *outcomes, *config, *work);
    }
    std::vector<std::string> problems;
    std::vector<ErrorCategory> categories;
    Json all = Json::array();
    for (const auto& outcome : *outcomes) {
      if (outcome.verified) {
        all.push_back({{"file", outcome.file.string()},
                       {"verified", true},
                       {"key_id", outcome.verified->key_id},
                       {"sha256", outcome.verified->subject.sha256},
                       {"predicate_type", outcome.verified->predicate_type}});
      } else {
        all.push_back(
            {{"file", outcome.file.string()}, {"verified", false}, {"error", outcome.problem->message()}});
        problems.push_back(outcome.file.string() + ": " + outcome.problem->message());
        categories.push_back(outcome.problem->category());
      }
    }
    if (!problems.empty()) return report_error(runtime, verify_failures(problems, categories));
    if (runtime.json) {
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& outcome : *outcomes)
        runtime.out << "OK " << outcome.file.string() << " (key " << outcome.verified->key_id << ", sha256 "
                    << outcome.verified->subject.sha256 << ")\n";
    }
    finish(runtime, {});
  });
}

}  // namespace relforge::cli
