#include "cli/nightly_signing.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "builders/ledger.hpp"
#include "core/time.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/bundle.hpp"

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

const matrix::Cell* find_cell(const builders::BuildOptions& build, const std::string& id) {
  for (const auto& cell : build.cells)
    if (cell.id() == id) return &cell;
  return nullptr;
}

nlohmann::ordered_json cell_json(const matrix::Cell& cell) {
  nlohmann::ordered_json out = {{"id", cell.id()}, {"build_id", cell.build_id()}};
  for (std::size_t i = 0; i < cell.size(); ++i) out[cell.name(i)] = cell.value(i);
  return out;
}

}  // namespace

Result<SigningKeys> load_signing_keys(const fs::path& private_key,
                                      const std::optional<fs::path>& public_key) {
  auto secret = signing::PrivateKey::load(private_key);
  if (!secret) return tl::unexpected(with_context(std::move(secret), "--key").error());
  fs::path public_path = public_key ? *public_key : fs::path(private_key).replace_extension(".pub");
  std::error_code error;
  if (!public_key && !fs::exists(public_path, error)) {
    return fail(ErrorCategory::not_found,
                "no public key beside " + private_key.string() + " (looked for " + public_path.string() +
                    "): pass --public-key PUB so the published bundles can be verified");
  }
  auto verifier = signing::PublicKey::load(public_path);
  if (!verifier) return tl::unexpected(with_context(std::move(verifier), "--public-key").error());
  if (verifier->key_id() != secret->key_id()) {
    return fail(ErrorCategory::conflict, public_path.string() + " (key id " + verifier->key_id() +
                                             ") is not the public half of " + private_key.string() +
                                             " (key id " + secret->key_id() +
                                             "): pass the matching --public-key");
  }
  return SigningKeys{std::move(*secret), std::move(*verifier), public_path};
}

Result<SignedWheel> sign_built_wheel(const SigningKeys& keys, const ProvenanceContext& context,
                                     const builders::CellOutcome& outcome) {
  const auto& build = *context.build;
  const auto* cell = find_cell(build, outcome.cell);
  if (cell == nullptr)
    return fail(ErrorCategory::internal, "nightly: built cell " + outcome.cell + " is not selected");
  auto ledger = builders::Ledger::open(fs::absolute(build.config.state_dir) / "state.db");
  if (!ledger) return tl::unexpected(ledger.error());
  auto attempt = ledger->last_success(outcome.cell, builders::inputs_key(build, *cell));
  if (!attempt) return tl::unexpected(attempt.error());
  if (!*attempt) {
    return fail(ErrorCategory::not_found, "the build ledger has no successful attempt of " + outcome.cell +
                                              " with these inputs, so its wheel has no provenance to sign");
  }
  const auto& row = **attempt;
  signing::BuildFacts facts;
  facts.cell = cell_json(*cell);
  facts.channel = context.channel;
  facts.source_commit = build.source_key;
  if (!context.source_repository.empty() && !build.source_key.empty())
    facts.source_repository = "git+" + context.source_repository;
  facts.builder_id = "https://relforge.dev/runners/" + host_name() + "/" + row.runner;
  facts.invocation_id = outcome.cell + "@" + std::to_string(row.started_unix);
  facts.started_on = core::rfc3339_utc(row.started_unix);
  facts.finished_on = core::rfc3339_utc(row.started_unix + row.duration_ms / 1000);
  if (!row.log.empty()) {
    if (auto digest = platform::sha256_file(row.log)) {
      facts.log_name = fs::path(row.log).filename().string();
      facts.log_sha256 = platform::to_hex(*digest);
    }
  }
  const fs::path wheel = outcome.wheel;
  auto bundle = signing::sign_file(wheel, keys.private_key, facts);
  if (!bundle) return tl::unexpected(with_context(std::move(bundle), "signing " + wheel.string()).error());
  const fs::path bundle_path = wheel.string() + ".sigstore.json";
  if (auto status = platform::write_file_atomic(bundle_path, *bundle); !status)
    return tl::unexpected(status.error());
  return SignedWheel{wheel.string(), bundle_path.string(), keys.private_key.key_id()};
}

}  // namespace relforge::cli
