#include "release/build_version.hpp"

#include <re2/re2.h>
#include <algorithm>
#include <cctype>
#include <chrono>

#include "core/channel_name.hpp"
#include "core/text.hpp"
#include "packaging/version.hpp"

namespace relforge::release {
namespace {

std::string_view short_ref(std::string_view ref) {
  for (std::string_view prefix : {"refs/tags/", "refs/heads/", "refs/remotes/origin/"}) {
    if (ref.substr(0, prefix.size()) == prefix) return ref.substr(prefix.size());
  }
  return ref;
}

bool is_release_branch(std::string_view ref) {
  static const RE2 pattern(R"(release/[0-9]+\.[0-9]+)");
  return RE2::FullMatch(short_ref(ref), pattern);
}

std::optional<std::string> final_tag_version(std::string_view ref) {
  static const RE2 pattern(R"(v([0-9]+\.[0-9]+\.[0-9]+))");
  std::string version;
  if (!RE2::FullMatch(short_ref(ref), pattern, &version)) return std::nullopt;
  return version;
}

Result<std::string> normalize_date(const std::string& date) {
  std::string digits;
  for (const char c : date) {
    if (c != '-') digits += c;
  }
  const bool dashed = date.size() == 10 && date[4] == '-' && date[7] == '-';
  const bool shape_ok = (date.size() == 8 || dashed) && digits.size() == 8 &&
                        std::all_of(digits.begin(), digits.end(),
                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  // std::chrono's civil calendar, as core/time reads dates: 2026-02-29 is no day of it.
  const std::chrono::year_month_day civil{
      std::chrono::year{shape_ok ? std::stoi(digits.substr(0, 4)) : 0},
      std::chrono::month{shape_ok ? static_cast<unsigned>(std::stoi(digits.substr(4, 2))) : 0U},
      std::chrono::day{shape_ok ? static_cast<unsigned>(std::stoi(digits.substr(6, 2))) : 0U}};
  if (!shape_ok || !civil.ok()) {
    return fail(
        ErrorCategory::invalid_input,
        "bad build date '" + date + "': expected a UTC date as YYYYMMDD or YYYY-MM-DD (e.g. 20260415)");
  }
  return digits;
}

}  // namespace

std::optional<std::string> rc_tag_version(std::string_view ref) {
  static const RE2 pattern(R"(v([0-9]+\.[0-9]+\.[0-9]+)-rc[0-9]+)");
  std::string version;
  if (!RE2::FullMatch(short_ref(ref), pattern, &version)) return std::nullopt;
  return version;
}

std::string channel_for_ref(std::string_view ref, std::string_view base_ref) {
  if (final_tag_version(ref)) return "release";
  if (rc_tag_version(ref) || is_release_branch(ref) || (!base_ref.empty() && is_release_branch(base_ref)))
    return "test";
  return "nightly";
}

Result<BuildVersion> build_version(const BuildVersionInputs& inputs) {
  BuildVersion out;
  const std::string file_text(core::trim(inputs.version_file_text));
  if (inputs.channel) {
    // "stable" is the channel's name in the store; the version logic below keys on the matrix's "release".
    out.channel = core::same_channel(*inputs.channel, core::k_stable_channel) ? "release" : *inputs.channel;
  } else if (inputs.ref == "HEAD" && inputs.base_ref.empty()) {
    // Detached with no tag: only the version file tells main (X.Y.Za0) from a release branch (X.Y.Z).
    out.channel = file_text.empty() || file_text.ends_with("a0") ? "nightly" : "test";
  } else {
    out.channel = channel_for_ref(inputs.ref, inputs.base_ref);
  }
  if (out.channel != "nightly" && out.channel != "test" && out.channel != "release") {
    return fail(ErrorCategory::invalid_input,
                "unknown channel '" + out.channel + "': use nightly, test or stable (or its alias release)");
  }
  std::string file_base = file_text;
  if (file_base.size() > 2 && file_base.ends_with("a0")) file_base.resize(file_base.size() - 2);
  if (out.channel == "nightly") {
    if (file_text.empty())
      return fail(ErrorCategory::invalid_input, "the version file is empty: write e.g. 2.8.0a0");
    out.base = file_base;
    out.source = "version file";
    auto date = normalize_date(inputs.date);
    if (!date) return tl::unexpected(date.error());
    out.version = out.base + ".dev" + *date;
  } else if (auto rc = rc_tag_version(inputs.ref)) {
    out.base = *rc;
    out.source = std::string(short_ref(inputs.ref));
  } else if (auto final_version = final_tag_version(inputs.ref)) {
    out.base = *final_version;
    out.source = std::string(short_ref(inputs.ref));
  } else {
    // A release branch without a tag: the version file must already hold the release version.
    out.base = file_text;
    out.source = "version file";
    auto parsed = packaging::parse_version(file_text);
    if (!parsed || parsed->is_prerelease() || parsed->has_local() || parsed->is_postrelease()) {
      return fail(ErrorCategory::invalid_input,
                  "channel " + out.channel +
                      " needs an RC tag (vX.Y.Z-rcN) or a release version in the version "
                      "file, but the ref is '" +
                      inputs.ref + "' and the version file says '" + file_text +
                      "': build from the RC tag, or cut the release branch first");
    }
  }
  if (out.channel != "nightly") out.version = out.base;
  if (!inputs.variant.empty()) out.version += "+" + inputs.variant;
  auto parsed = packaging::parse_version(out.version);
  if (!parsed || parsed->public_string() != out.version.substr(0, out.version.find('+')) ||
      (parsed->has_local() && parsed->local_string() != inputs.variant)) {
    return fail(ErrorCategory::invalid_input,
                "'" + out.version +
                    "' is not a PEP 440 version in normal form: check the version file "
                    "('" +
                    file_text + "') and the variant ('" + inputs.variant + "')");
  }
  auto base = packaging::parse_version(out.base);
  if (!base || base->is_prerelease() || base->is_postrelease() || base->has_local()) {
    return fail(ErrorCategory::invalid_input,
                "the base version '" + out.base + "' must be X.Y.Z (the version file may end in a0 only)");
  }
  return out;
}

}  // namespace relforge::release
