#include "matrix/select.hpp"

#include <algorithm>
#include <tuple>

#include "matrix/glob.hpp"

namespace relforge::matrix {
namespace {

std::string describe(const Selection& selection) {
  std::string out;
  const auto add = [&](const std::string& flag, const std::string& value) {
    if (!out.empty()) out += ' ';
    out += flag + " '" + value + "'";
  };
  if (selection.os) add("--os", *selection.os);
  for (const auto& glob : selection.select) add("--select", glob);
  for (const auto& glob : selection.skip) add("--skip", glob);
  return out;
}

}  // namespace

Status apply_selection(Expansion& expansion, const Selection& selection) {
  if (selection.empty()) return {};
  std::optional<std::size_t> os_slot;
  if (selection.os) {
    const auto& names = *expansion.names;
    const auto it = std::find(names.begin(), names.end(), "os");
    if (it == names.end()) {
      return fail(ErrorCategory::invalid_input, "--os needs a field named 'os', and this matrix has none");
    }
    os_slot = static_cast<std::size_t>(it - names.begin());
  }
  std::optional<Glob> os_glob;
  if (selection.os) {
    auto glob = Glob::compile(*selection.os);
    if (!glob) return tl::unexpected(glob.error().with_context("--os"));
    os_glob.emplace(std::move(*glob));
  }
  std::size_t total = os_glob ? os_glob->patterns() : 0;
  std::vector<Glob> select, skip;
  for (const auto& [flag, patterns, globs] :
       {std::tuple{"--select", &selection.select, &select}, std::tuple{"--skip", &selection.skip, &skip}}) {
    for (const auto& pattern : *patterns) {
      auto glob = Glob::compile(pattern);
      if (!glob) return tl::unexpected(glob.error().with_context(flag));
      total += glob->patterns();
      if (total > k_max_total_brace_patterns) {
        return fail(ErrorCategory::invalid_input,
                    "--select, --skip and --os expand to more than " +
                        std::to_string(k_max_total_brace_patterns) +
                        " glob patterns together (brace groups multiply): refused; use fewer brace groups");
      }
      globs->push_back(std::move(*glob));
    }
  }
  const std::size_t before = expansion.cells.size();
  std::erase_if(expansion.cells, [&](const Cell& cell) {
    if (os_glob && !os_glob->matches(cell.value(*os_slot))) return true;
    const auto hit = [&](const Glob& glob) { return glob.matches(cell.build_id()); };
    if (!select.empty() && std::none_of(select.begin(), select.end(), hit)) return true;
    return std::any_of(skip.begin(), skip.end(), hit);
  });
  if (expansion.cells.empty()) {
    return fail(ErrorCategory::nothing_selected, "no cell matches " + describe(selection) + " (" +
                                                     std::to_string(before) + " cells on channel '" +
                                                     expansion.channel + "' before selection)");
  }
  return {};
}

}  // namespace relforge::matrix
