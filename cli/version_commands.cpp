// `relforge version sort|compare|match|normalize|requirement`: PEP 440 and PEP 508 as packaging
// 26.3 (pip) sees them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/text.hpp"
#include "packaging/marker.hpp"
#include "packaging/requirement.hpp"
#include "packaging/specifier.hpp"
#include "packaging/supported_tags.hpp"
#include "packaging/version.hpp"
#include "packaging/version_key.hpp"
#include "platform/allocator.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;
using packaging::PreReleases;
using packaging::Version;

enum class SortDirection { ascending, descending };

struct VersionSortOptions {
  std::string input;  // one version a line; blank lines are skipped
  SortDirection direction = SortDirection::ascending;
};

struct VersionCompareOptions {
  std::string a;
  std::string b;
};

struct VersionMatchOptions {
  std::string specifiers;
  std::vector<std::string> versions;
  PreReleases prereleases = PreReleases::by_specifier;
};

struct VersionNormalizeOptions {
  std::vector<std::string> versions;
};

struct Parsed {
  std::string text;  // as given, surrounding whitespace stripped
  Version version;
};

struct MatchOutput {
  std::string specifiers;  // str(SpecifierSet)
  bool prereleases_allowed = false;
  std::vector<std::string> matches;
  std::vector<std::string> rejected;
};

// Parses every item so one run reports every bad one, not only the first.
Result<std::vector<Parsed>> parse_all(const std::vector<std::string>& items,
                                      const std::vector<std::string>& where,
                                      std::string_view noun = "arguments") {
  std::vector<Parsed> parsed;
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto version = packaging::parse_version(items[i]);
    if (!version) {
      problems.push_back(where.empty() ? version.error().message()
                                       : where[i] + ": " + version.error().message());
      continue;
    }
    parsed.push_back({std::string(packaging::strip_python_space(items[i])), std::move(*version)});
  }
  if (problems.size() == 1) return fail(ErrorCategory::invalid_input, problems.front());
  if (!problems.empty()) {
    constexpr std::size_t k_shown = 10;
    std::vector<std::string> shown(problems.begin(), problems.begin() + std::min(problems.size(), k_shown));
    if (problems.size() > k_shown)
      shown.push_back("... and " + std::to_string(problems.size() - k_shown) + " more");
    return fail(ErrorCategory::invalid_input,
                std::to_string(problems.size()) + " of " + std::to_string(items.size()) + " " +
                    std::string(noun) + " are not PEP 440 versions:\n  " + core::join(shown, "\n  "));
  }
  return parsed;
}

// The general path: every line parsed whole, every bad one reported with its line number.
Result<std::vector<std::string>> sort_parsed(const VersionSortOptions& options) {
  std::vector<std::string> lines, where;
  std::istringstream in(options.input);
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (packaging::strip_python_space(line).empty()) continue;
    lines.push_back(line);
    where.push_back("stdin line " + std::to_string(number));
  }
  auto parsed = parse_all(lines, where, "lines");
  if (!parsed) return tl::unexpected(parsed.error());
  // Stable in both directions: versions that compare equal (1.0, 1.0.0) keep their input order.
  if (options.direction == SortDirection::ascending) {
    std::stable_sort(parsed->begin(), parsed->end(),
                     [](const Parsed& x, const Parsed& y) { return x.version < y.version; });
  } else {
    std::stable_sort(parsed->begin(), parsed->end(),
                     [](const Parsed& x, const Parsed& y) { return y.version < x.version; });
  }
  std::vector<std::string> sorted;
  sorted.reserve(parsed->size());
  for (auto& item : *parsed) sorted.push_back(std::move(item.text));
  return sorted;
}

// One line on the fast path: its packed key and where its text lies in the input. The offset
// doubles as the tie-break that makes the unstable sort stable.
struct Packed {
  std::array<std::uint64_t, 3> key;
  std::uint32_t at;
  std::uint32_t size;
};

// The sorted lines: items pointing into `input` (fast path) or the texts themselves.
struct SortedLines {
  std::string input;
  std::vector<Packed> keyed;
  std::vector<std::string> parsed;

  template <typename Visit>
  void each(Visit visit) const {
    for (const Packed& item : keyed) visit(std::string_view(input).substr(item.at, item.size));
    for (const std::string& text : parsed) visit(std::string_view(text));
  }
};

// A function object, not a function pointer, so that std::sort inlines it.
template <bool Descending>
struct PackedBefore {
  bool operator()(const Packed& x, const Packed& y) const {
    const auto& a = Descending ? y.key : x.key;
    const auto& b = Descending ? x.key : y.key;
    if (a[0] != b[0]) return a[0] < b[0];
    if (a[1] != b[1]) return a[1] < b[1];
    if (a[2] != b[2]) return a[2] < b[2];
    return x.at < y.at;
  }
};

// The fast path for inputs whose every line fits a VersionKey (index-like versions): no
// allocation per line, each key packed into 32 bytes as it is parsed. The packer widens as
// larger columns turn up, re-packing the items so far (with_room keeps that to a few times a
// column); the full 96-byte keys are never stored, as touching fresh memory is what made this
// command slow and its time erratic. false sends the input to sort_parsed, which also names
// the lines that are no versions.
bool sort_keyed(std::string_view input, SortDirection direction, std::vector<Packed>& items) {
  if (input.size() >= UINT32_MAX) return false;
  items.reserve(static_cast<std::size_t>(std::count(input.begin(), input.end(), '\n')) + 1);
  packaging::VersionKey columns;
  auto packer = packaging::KeyPacker::with_room(columns);
  for (std::size_t at = 0; at < input.size();) {
    const auto end = std::min(input.find('\n', at), input.size());
    const auto text = packaging::strip_python_space(input.substr(at, end - at));
    at = end + 1;
    if (text.empty()) continue;
    const auto key = packaging::parse_version_key(text);
    if (!key) return false;
    if (!packer.holds(*key)) {
      for (std::size_t i = 0; i < columns.words.size(); ++i) columns.words[i] |= key->words[i];
      const auto wider = packaging::KeyPacker::with_room(columns);
      if (!wider.fits()) return false;
      for (Packed& item : items) item.key = wider.pack(packer.unpack(item.key));
      packer = wider;
    }
    items.push_back({packer.pack(*key), static_cast<std::uint32_t>(text.data() - input.data()),
                     static_cast<std::uint32_t>(text.size())});
  }
  if (direction == SortDirection::ascending)
    std::sort(items.begin(), items.end(), PackedBefore<false>{});
  else
    std::sort(items.begin(), items.end(), PackedBefore<true>{});
  return true;
}

Result<SortedLines> run_version_sort(VersionSortOptions& options) {
  SortedLines sorted;
  if (sort_keyed(options.input, options.direction, sorted.keyed)) {
    sorted.input = std::move(options.input);
    return sorted;
  }
  sorted.keyed = {};
  auto parsed = sort_parsed(options);
  if (!parsed) return tl::unexpected(parsed.error());
  sorted.parsed = std::move(*parsed);
  return sorted;
}

// stdin in large blocks (istreambuf_iterator goes a byte at a time), into one allocation of the
// right size when the stream can tell how much is left (a regular file).
std::string read_all(std::istream& in) {
  std::string text;
  std::streambuf& buffer = *in.rdbuf();
  const auto start = buffer.pubseekoff(0, std::ios::cur, std::ios::in);
  const auto end = start == -1 ? start : buffer.pubseekoff(0, std::ios::end, std::ios::in);
  if (end != -1 && buffer.pubseekpos(start, std::ios::in) == start && end > start) {
    text.resize(static_cast<std::size_t>(end - start));
    const auto got = buffer.sgetn(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
  }
  std::array<char, 1 << 16> block;
  while (true) {
    const auto got = buffer.sgetn(block.data(), static_cast<std::streamsize>(block.size()));
    if (got <= 0) break;
    text.append(block.data(), static_cast<std::size_t>(got));
  }
  return text;
}

// The lines in blocks through one reused buffer: a copy of the whole output would be as much
// fresh memory again as the input.
void write_lines(std::ostream& out, const SortedLines& sorted) {
  constexpr std::size_t k_block = 1 << 16;
  std::string block;
  block.reserve(k_block);
  sorted.each([&](std::string_view line) {
    if (block.size() + line.size() + 1 > k_block && !block.empty()) {
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
      block.clear();
    }
    block += line;
    block += '\n';
  });
  out.write(block.data(), static_cast<std::streamsize>(block.size()));
}

Result<std::string> run_version_compare(const VersionCompareOptions& options) {
  auto parsed = parse_all({options.a, options.b}, {"argument A", "argument B"});
  if (!parsed) return tl::unexpected(parsed.error());
  const auto order = (*parsed)[0].version <=> (*parsed)[1].version;
  return std::string(order < 0 ? "<" : order > 0 ? ">" : "==");
}

Result<MatchOutput> run_version_match(const VersionMatchOptions& options) {
  auto set = packaging::parse_specifier_set(options.specifiers);
  if (!set) return tl::unexpected(set.error());
  auto parsed = parse_all(options.versions, {});
  if (!parsed) return tl::unexpected(parsed.error());
  // The texts as given: === compares the version as written, not its normal form.
  std::vector<std::string> texts;
  texts.reserve(parsed->size());
  for (const auto& item : *parsed) texts.push_back(item.text);
  MatchOutput output;
  output.specifiers = set->to_string();
  output.prereleases_allowed =
      options.prereleases == PreReleases::allow ||
      (options.prereleases == PreReleases::by_specifier && set->mentions_prerelease());
  const std::vector<std::size_t> kept = set->filter_text(texts, options.prereleases);
  for (std::size_t i = 0, k = 0; i < parsed->size(); ++i) {
    const bool match = k < kept.size() && kept[k] == i;
    (match ? output.matches : output.rejected).push_back((*parsed)[i].text);
    if (match) ++k;
  }
  return output;
}

Result<std::vector<Parsed>> run_version_normalize(const VersionNormalizeOptions& options) {
  return parse_all(options.versions, {});
}

// A JSON number below 2^64; a larger one as its decimal digits in a string, which JSON readers
// would otherwise round.
Json number_json(const packaging::VersionNumber& n) {
  return n.is_small() ? Json(n.small_value()) : Json(n.to_string());
}

Json version_json(const Parsed& item) {
  const Version& v = item.version;
  Json release = Json::array();
  for (const auto& n : v.release) release.push_back(number_json(n));
  Json pre = nullptr;
  if (v.pre) {
    const char* kind = v.pre->kind == packaging::PreReleaseKind::a   ? "a"
                       : v.pre->kind == packaging::PreReleaseKind::b ? "b"
                                                                     : "rc";
    pre = Json::array({kind, number_json(v.pre->number)});
  }
  return {{"input", item.text},
          {"normalized", v.to_string()},
          {"public", v.public_string()},
          {"base", v.base_string()},
          {"epoch", number_json(v.epoch)},
          {"release", release},
          {"pre", pre},
          {"post", v.post ? number_json(*v.post) : Json(nullptr)},
          {"dev", v.dev ? number_json(*v.dev) : Json(nullptr)},
          {"local", v.has_local() ? Json(v.local_string()) : Json(nullptr)},
          {"is_prerelease", v.is_prerelease()},
          {"is_postrelease", v.is_postrelease()}};
}

void register_sort(CLI::App& group, Runtime& runtime) {
  auto reverse = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "sort", "Sort the versions on stdin (one a line) in PEP 440 order; --json prints a JSON array");
  command->add_flag("--reverse,-r", *reverse, "Newest first");
  add_json_flag(*command, runtime);
  command->callback([&runtime, reverse] {
    platform::tune_heap_for_batch_command();
    VersionSortOptions options;
    options.input = read_all(runtime.in);
    options.direction = *reverse ? SortDirection::descending : SortDirection::ascending;
    const auto sorted = run_version_sort(options);
    if (!sorted) return report_error(runtime, sorted.error());
    if (runtime.json) {
      Json array = Json::array();
      sorted->each([&array](std::string_view line) { array.push_back(line); });
      runtime.out << json_text(array) << '\n';
    } else {
      write_lines(runtime.out, *sorted);
    }
    finish(runtime, {});
  });
}

void register_compare(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<VersionCompareOptions>();
  CLI::App* command = group.add_subcommand("compare", "Compare two versions: prints <, == or >");
  command->add_option("a", options->a, "The first version")->required();
  command->add_option("b", options->b, "The second version")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    const auto result = run_version_compare(*options);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"a", options->a}, {"b", options->b}, {"result", *result}}) << '\n';
    } else {
      runtime.out << *result << '\n';
    }
    finish(runtime, {});
  });
}

void register_match(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<VersionMatchOptions>();
  auto pre = std::make_shared<bool>(false);
  auto no_pre = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "match",
      "Print the versions a specifier set admits, as pip would (packaging 26.3: pre-releases only when "
      "no final release matches, or a specifier names one); exit 1 when none does");
  command->add_option("specifiers", options->specifiers, "Comma-separated specifiers, e.g. '>=2.6,<2.8'")
      ->required();
  command->add_option("versions", options->versions, "Versions to test")->required();
  auto* pre_flag =
      command->add_flag("--pre", *pre, "Admit pre-releases even when a final release matches (pip --pre)");
  command->add_flag("--no-pre", *no_pre, "Never admit pre-releases (packaging's prereleases=False)")
      ->excludes(pre_flag);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, pre, no_pre] {
    options->prereleases = *pre      ? PreReleases::allow
                           : *no_pre ? PreReleases::exclude
                                     : PreReleases::by_specifier;
    const auto result = run_version_match(*options);
    if (!result) return report_error(runtime, result.error());
    if (runtime.json) {
      const Json body = {{"specifiers", result->specifiers},
                         {"prereleases", result->prereleases_allowed},
                         {"matches", result->matches},
                         {"rejected", result->rejected}};
      runtime.out << json_text(body) << '\n';
    } else {
      for (const auto& version : result->matches) runtime.out << version << '\n';
    }
    finish(runtime, {});
    if (result->matches.empty()) runtime.exit_code = k_exit_false;
  });
}

void register_normalize(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<VersionNormalizeOptions>();
  CLI::App* command = group.add_subcommand(
      "normalize", "Print each version in PEP 440 normal form (1.0-RC1 -> 1.0rc1); --json adds its parts");
  command->add_option("versions", options->versions, "Versions to normalise")->required();
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    const auto parsed = run_version_normalize(*options);
    if (!parsed) return report_error(runtime, parsed.error());
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& item : *parsed) all.push_back(version_json(item));
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& item : *parsed) runtime.out << item.version.to_string() << '\n';
    }
    finish(runtime, {});
  });
}

struct RequirementOptions {
  std::vector<std::string> requirements;
  std::string python;    // "3.13"
  std::string platform;  // "manylinux_2_28_x86_64"
  std::string extra;
};

struct RequirementAnswer {
  packaging::Requirement requirement;
  bool applies = true;  // the marker holds in the target environment (true without a marker)
};

Result<std::vector<RequirementAnswer>> run_requirement(const RequirementOptions& options) {
  auto target = packaging::parse_python_target(options.python, options.platform);
  if (!target) return tl::unexpected(target.error());
  auto env = packaging::environment_for(target->major, target->minor, options.platform);
  if (!env) return tl::unexpected(env.error());
  if (!options.extra.empty()) (*env)["extra"] = options.extra;
  std::vector<RequirementAnswer> answers;
  for (const auto& text : options.requirements) {
    auto requirement = packaging::parse_requirement(text);
    if (!requirement) return tl::unexpected(requirement.error());
    RequirementAnswer answer{std::move(*requirement), true};
    if (answer.requirement.marker) {
      auto applies = answer.requirement.marker->evaluate(*env);
      if (!applies) return tl::unexpected(applies.error());
      answer.applies = *applies;
    }
    answers.push_back(std::move(answer));
  }
  return answers;
}

void register_requirement(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<RequirementOptions>();
  CLI::App* command = group.add_subcommand(
      "requirement",
      "Parse PEP 508 requirements (Requires-Dist lines) as packaging 26.3 does and say whether each "
      "applies to a target interpreter; prints the ones that apply, exit 1 when none does");
  command
      ->add_option("requirements", options->requirements,
                   "Requirements, e.g. \"torch[cuda]>=2.6; sys_platform == 'linux'\"")
      ->required();
  command->add_option("--python", options->python, "CPython version of the target, e.g. 3.13")->required();
  command
      ->add_option(
          "--platform", options->platform,
          "The target machine as a platform tag: manylinux_2_28_x86_64, macosx_14_0_arm64, win_amd64, ...")
      ->required();
  command->add_option("--extra", options->extra, "The extra being installed (the marker variable `extra`)");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    const auto answers = run_requirement(*options);
    if (!answers) return report_error(runtime, answers.error());
    bool any = false;
    if (runtime.json) {
      Json all = Json::array();
      for (const auto& a : *answers) {
        const auto& r = a.requirement;
        all.push_back({{"requirement", r.to_string()},
                       {"name", r.name},
                       {"extras", r.extras},
                       {"specifier", r.specifier.to_string()},
                       {"url", r.url ? Json(*r.url) : Json(nullptr)},
                       {"marker", r.marker ? Json(r.marker->to_string()) : Json(nullptr)},
                       {"applies", a.applies}});
        any = any || a.applies;
      }
      runtime.out << json_text(all) << '\n';
    } else {
      for (const auto& a : *answers) {
        if (a.applies) runtime.out << a.requirement.to_string() << '\n';
        any = any || a.applies;
      }
    }
    finish(runtime, {});
    if (!any) runtime.exit_code = k_exit_false;
  });
}

}  // namespace

void register_version(CLI::App& group, Runtime& runtime) {
  register_sort(group, runtime);
  register_compare(group, runtime);
  register_match(group, runtime);
  register_normalize(group, runtime);
  register_requirement(group, runtime);
  register_version_current(group, runtime);
}

}  // namespace relforge::cli
