#pragma once
// An ordered log-classification ruleset (file order = priority, first = highest) loaded from TOML
// and compiled with RE2. Loading is all-or-nothing: one invalid regex rejects the whole file.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace re2 {
class RE2;
}

namespace relforge::triage {

struct Rule {
  // Several rules may share a name: alternatives of one failure kind (PyTorch's published
  // ruleset does this); each keeps its own place in the order.
  std::string name;
  std::string pattern;
  std::string category = "generic";
  bool flaky = false;  // a match means an infrastructure/flaky failure, not the change's fault
  // A summary line ("RuntimeError: test_ops 3/4 failed!") only repeats that something failed:
  // the rule claims its lines, so no other rule can choose them; it wins only by its own priority.
  bool summary = false;
};

// A block of lines to skip, from a line matching `start` to the next line matching `end`.
struct SkipBlock {
  std::string start;
  std::string end;
};

struct RuleSpec {
  std::vector<Rule> rules;
  std::vector<std::string> ignore;  // lines never chosen (boilerplate)
  std::vector<SkipBlock> skip_blocks;
};

class CompiledRules;

// Parses a rules file; `origin` names it in errors ("rules.toml").
Result<RuleSpec> parse_rule_spec(std::string_view toml_text, std::string_view origin);
Result<RuleSpec> load_rule_spec(const std::filesystem::path& path);

// The TOML text of the built-in ruleset (`relforge triage rules` prints it).
std::string_view default_rules_toml();

// Compiles every pattern; the first invalid one fails with the rule name and RE2's message.
Result<std::shared_ptr<const CompiledRules>> compile_rules(const RuleSpec& spec);
Result<std::shared_ptr<const CompiledRules>> default_rules();

}  // namespace relforge::triage
