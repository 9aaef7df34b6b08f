#include "signing/bundle.hpp"

#include <sstream>
#include <utility>

#include "core/text.hpp"
#include "core/utf8.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/dsse.hpp"
#include "signing/file_bytes.hpp"
#include "signing/strict_json.hpp"

namespace relforge::signing {
namespace {

using Json = nlohmann::ordered_json;

void set_if(Json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

std::string string_field(const nlohmann::json& object, const char* key) {
  if (object.contains(key) && object[key].is_string()) return object[key].get<std::string>();
  return {};
}

BuildFacts facts_from(const nlohmann::json& entry) {
  BuildFacts facts;
  if (entry.contains("cell") && entry["cell"].is_object())
    facts.cell = Json(entry["cell"]);
  else if (entry.contains("cell") && entry["cell"].is_string())
    facts.cell = {{"id", entry["cell"]}};
  facts.channel = string_field(entry, "channel");
  facts.source_repository = string_field(entry, "source_repository");
  facts.source_commit = string_field(entry, "source_commit");
  if (facts.source_commit.empty()) facts.source_commit = string_field(entry, "commit");
  facts.builder_id = string_field(entry, "builder_id");
  if (facts.builder_id.empty()) facts.builder_id = string_field(entry, "runner_id");
  facts.image = string_field(entry, "image");
  facts.image_digest = string_field(entry, "image_digest");
  facts.invocation_id = string_field(entry, "invocation_id");
  facts.started_on = string_field(entry, "started_on");
  facts.finished_on = string_field(entry, "finished_on");
  facts.log_name = string_field(entry, "log_name");
  facts.log_sha256 = string_field(entry, "log_sha256");
  return facts;
}

}  // namespace

Result<BuildFacts> load_build_facts(const std::filesystem::path& ledger, const std::string& file_name) {
  // A regular file of bounded size: a FIFO would be waited on, /dev/zero read until memory ends.
  auto text = read_regular_file(ledger, k_max_ledger_bytes, "build ledger", ErrorCategory::invalid_input,
                                "a build ledger is JSON lines of flat records, one per wheel built");
  if (!text) return tl::unexpected(text.error());
  // The cell is copied into the predicate, which verify reads under k_max_json_depth.
  if (!core::json_nesting_within(*text, k_max_json_depth)) {
    return fail(ErrorCategory::invalid_input, ledger.string() + " nests deeper than " +
                                                  std::to_string(k_max_json_depth) +
                                                  " levels; a build ledger entry is a flat record");
  }
  std::vector<nlohmann::json> entries;
  const auto whole = nlohmann::json::parse(*text, nullptr, false);
  if (!whole.is_discarded() && whole.is_object()) {
    entries.push_back(whole);
  } else if (!whole.is_discarded() && whole.is_array()) {
    for (const auto& item : whole) entries.push_back(item);
  } else {
    std::istringstream lines(*text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto entry = nlohmann::json::parse(line, nullptr, false);
      if (entry.is_discarded() || !entry.is_object()) {
        return fail(ErrorCategory::invalid_input, ledger.string() + ":" + std::to_string(number) +
                                                      ": not a JSON object (the provenance ledger is "
                                                      "a JSON object, array or JSON lines)");
      }
      entries.push_back(std::move(entry));
    }
  }
  // Always by name, one entry or many: a ledger's only entry may be another wheel's build.
  for (const auto& entry : entries) {
    if (string_field(entry, "wheel") == file_name || string_field(entry, "file") == file_name) {
      return facts_from(entry);
    }
  }
  return fail(ErrorCategory::not_found, ledger.string() + " has no entry whose \"wheel\" is '" + file_name +
                                            "' (" + std::to_string(entries.size()) +
                                            (entries.size() == 1 ? " entry)" : " entries)"));
}

Json provenance_predicate(const BuildFacts& facts) {
  Json external = {{"cell", facts.cell}};
  set_if(external, "channel", facts.channel);
  Json dependencies = Json::array();
  if (!facts.source_commit.empty()) {
    Json source = {{"digest", {{"gitCommit", facts.source_commit}}}};
    if (!facts.source_repository.empty())
      source = {{"uri", facts.source_repository}, {"digest", source["digest"]}};
    dependencies.push_back(source);
  }
  if (!facts.image.empty()) {
    Json image = {{"uri", facts.image}};
    if (!facts.image_digest.empty()) image["digest"] = {{"sha256", facts.image_digest}};
    dependencies.push_back(image);
  }
  if (!facts.images_lock_sha256.empty()) {
    dependencies.push_back({{"uri", facts.images_lock}, {"digest", {{"sha256", facts.images_lock_sha256}}}});
  }
  Json metadata = Json::object();
  set_if(metadata, "invocationId", facts.invocation_id);
  set_if(metadata, "startedOn", facts.started_on);
  set_if(metadata, "finishedOn", facts.finished_on);
  Json byproducts = Json::array();
  if (!facts.log_sha256.empty()) {
    byproducts.push_back({{"name", facts.log_name.empty() ? "build.log" : facts.log_name},
                          {"digest", {{"sha256", facts.log_sha256}}}});
  }
  return {{"buildDefinition",
           {{"buildType", k_build_type},
            {"externalParameters", external},
            {"internalParameters", Json::object()},
            {"resolvedDependencies", dependencies}}},
          {"runDetails",
           {{"builder",
             {{"id", facts.builder_id.empty() ? "https://relforge.dev/builder/local" : facts.builder_id}}},
            {"metadata", metadata},
            {"byproducts", byproducts}}}};
}

Json statement(const Subject& subject, const Json& predicate) {
  return {{"_type", k_statement_type},
          {"subject", Json::array({{{"name", subject.name}, {"digest", {{"sha256", subject.sha256}}}}})},
          {"predicateType", k_slsa_predicate_type},
          {"predicate", predicate}};
}

Result<std::string> sign_file(const std::filesystem::path& file, const PrivateKey& key,
                              const BuildFacts& facts) {
  // The statement is JSON text: a name in it that is not UTF-8 could not be written, nor read alike.
  for (const auto& [what, name] :
       {std::pair<std::string, std::string>{"the file name", file.filename().string()},
        std::pair<std::string, std::string>{"the images lock path", facts.images_lock}}) {
    if (!core::is_valid_utf8(name))
      return fail(ErrorCategory::invalid_input, what + " '" + core::to_valid_utf8(name) +
                                                    "' is not UTF-8, and the signed statement names it: "
                                                    "rename it (nothing was signed)");
  }
  auto digest = sha256_of_regular_file(file);
  if (!digest) return tl::unexpected(digest.error());
  const Subject subject{file.filename().string(), std::move(*digest)};
  Envelope envelope;
  envelope.payload = statement(subject, provenance_predicate(facts)).dump();
  auto signature = key.sign(pae(envelope.payload_type, envelope.payload));
  if (!signature) return tl::unexpected(signature.error());
  envelope.signatures.push_back({key.key_id(), std::move(*signature)});
  // Key-based: no certificate and no tlog entries; keyless signing would fill both in later.
  const Json bundle = {{"mediaType", k_bundle_media_type},
                       {"verificationMaterial",
                        {{"publicKey", {{"hint", key.key_id()}}},
                         {"tlogEntries", Json::array()},
                         {"timestampVerificationData", Json::object()}}},
                       {"dsseEnvelope", envelope_to_json(envelope)}};
  std::string text = bundle.dump(2) + "\n";
  // What verify would refuse is never written: the size, nesting and key rules of the strict reader.
  for (const auto& [part, bytes] :
       {std::pair<std::string, std::string_view>{"the bundle", text},
        std::pair<std::string, std::string_view>{"the statement", envelope.payload}}) {
    if (auto checked = parse_strict_json(bytes, part, k_max_bundle_bytes); !checked) {
      return fail(ErrorCategory::invalid_input,
                  "cannot sign " + subject.name + ": " + checked.error().message() +
                      " (the provenance facts are too large, too deep or repeat a "
                      "key in another letter case)");
    }
  }
  return text;
}

}  // namespace relforge::signing
