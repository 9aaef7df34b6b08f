#include "release/build_ref.hpp"
#include "core/text.hpp"

#include <charconv>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace relforge::release {
namespace {

struct TagRank {
  unsigned long long major = 0, minor = 0, patch = 0;
  bool final = false;  // vX.Y.Z outranks its RCs: the final tags the last RC's commit
  unsigned long long rc = 0;
  auto key() const { return std::tie(major, minor, patch, final, rc); }
};

// Reads 1 to 9 ASCII digits at the front of `text` into `value` and drops them.
bool take_number(std::string_view& text, unsigned long long& value) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return false;
  std::from_chars(text.data(), text.data() + digits, value);
  text.remove_prefix(digits);
  return true;
}

bool take(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// refs/tags/vX.Y.Z or refs/tags/vX.Y.Z-rcN, each number 1 to 9 digits; nothing else.
std::optional<TagRank> rank_tag(std::string_view ref) {
  TagRank rank;
  if (!take(ref, "refs/tags/v") || !take_number(ref, rank.major) || !take(ref, ".") ||
      !take_number(ref, rank.minor) || !take(ref, ".") || !take_number(ref, rank.patch)) {
    return std::nullopt;
  }
  rank.final = ref.empty();
  if (!rank.final && (!take(ref, "-rc") || !take_number(ref, rank.rc) || !ref.empty())) return std::nullopt;
  return rank;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// A ref's commit; a name git refuses ("a..b", "x y") is bad input, not an I/O failure.
Result<std::optional<std::string>> lookup(const Repository& repo, const std::string& ref) {
  auto target = repo.ref_target(ref);
  if (!target) {
    return fail(ErrorCategory::invalid_input, "cannot read the ref '" + ref + "' (" +
                                                  target.error().message() +
                                                  "): give a tag, a branch or refs/pull/N/merge");
  }
  return target;
}

using core::short_sha;

// What HEAD is, for messages: "1a2b3c4d5e6f (refs/tags/v0.4.0)".
std::string describe_head(const Repository& repo, const std::string& head) {
  auto ref = head_ref(repo);
  return short_sha(head) + " (" + (ref ? *ref : std::string("HEAD")) + ")";
}

// A branch contains HEAD when its tip is HEAD or a descendant of it.
Result<bool> branch_contains(const Repository& repo, const std::string& branch, const std::string& head,
                             std::string& seen) {
  if (repo.head_branch() == branch) return true;
  for (const std::string& ref : {"refs/heads/" + branch, "refs/remotes/origin/" + branch}) {
    auto tip = lookup(repo, ref);
    if (!tip) return tl::unexpected(tip.error());
    if (!*tip) continue;
    seen = ref + " is at " + short_sha(**tip);
    auto contains = repo.is_descendant_or_equal(**tip, head);
    if (!contains) return tl::unexpected(contains.error());
    if (*contains) return true;
  }
  return false;
}

}  // namespace

Result<std::string> head_ref(const Repository& repo) {
  auto head = repo.resolve_commit("HEAD");
  if (!head) return fail(ErrorCategory::not_found, "the repository has no commits yet");
  std::optional<std::pair<TagRank, std::string>> best;
  for (const auto& tag : repo.list_refs("refs/tags/v*")) {
    auto rank = rank_tag(tag);
    if (!rank) continue;
    auto target = lookup(repo, tag);
    if (!target || !*target || **target != *head) continue;
    if (!best || rank->key() > best->first.key()) best = std::make_pair(*rank, tag);
  }
  if (best) return best->second;
  if (auto branch = repo.head_branch()) return "refs/heads/" + *branch;
  return std::string("HEAD");
}

Status check_ref_agrees_with_head(const Repository& repo, const std::string& ref, const std::string& from) {
  auto head = repo.resolve_commit("HEAD");
  if (!head) return fail(ErrorCategory::not_found, "the repository has no commits yet");
  if (ref == "HEAD") return {};
  std::string says;  // what the ref says, when it disagrees
  if (starts_with(ref, "refs/pull/")) {
    // A pull request's merge ref is fetched under refs/remotes/pull/ by CI checkouts; when no copy is
    // here there is nothing to compare, and the channel then comes from the base branch.
    const std::string rest = ref.substr(std::string("refs/").size());
    for (const std::string& copy : {ref, "refs/remotes/" + rest}) {
      auto target = lookup(repo, copy);
      if (!target) return tl::unexpected(target.error());
      if (*target && **target != *head) says = copy + " is at " + short_sha(**target);
      if (*target && **target == *head) return {};
    }
    if (says.empty()) return {};
  } else {
    std::string tag, branch;
    if (starts_with(ref, "refs/tags/")) {
      tag = ref.substr(std::string("refs/tags/").size());
    } else if (starts_with(ref, "refs/heads/")) {
      branch = ref.substr(std::string("refs/heads/").size());
    } else if (starts_with(ref, "refs/")) {
      says = "it is neither a tag, a branch nor a pull request ref";
    } else {
      // A short name: a tag when one exists by that name, else a branch.
      auto as_tag = lookup(repo, "refs/tags/" + ref);
      if (!as_tag) return tl::unexpected(as_tag.error());
      (*as_tag ? tag : branch) = ref;
    }
    if (!tag.empty()) {
      auto target = lookup(repo, "refs/tags/" + tag);
      if (!target) return tl::unexpected(target.error());
      if (!*target) {
        says = "there is no tag " + tag + " in this repository (fetch it)";
      } else if (**target != *head) {
        says = "the tag " + tag + " points at " + short_sha(**target);
      } else {
        return {};
      }
    } else if (!branch.empty()) {
      std::string seen;
      auto contains = branch_contains(repo, branch, *head, seen);
      if (!contains) return tl::unexpected(contains.error());
      if (*contains) return {};
      says = seen.empty() ? "there is no branch " + branch + " here (local or origin's)"
                          : "HEAD is not on branch " + branch + " (" + seen + ")";
    }
  }
  return fail(ErrorCategory::invalid_input,
              "the ref '" + ref + "' (from " + from + ") disagrees with HEAD: HEAD is " +
                  describe_head(repo, *head) + ", but " + says +
                  "; check out that ref, or pass --trust-ref if the build really is for '" + ref + "'");
}

}  // namespace relforge::release
