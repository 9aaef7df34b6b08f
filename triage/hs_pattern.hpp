#pragma once
// Internal: an RE2 rule pattern rewritten for Hyperscan so that Hyperscan's matches are a superset
// of RE2's (Hyperscan only says where a rule may match; RE2 decides). nullopt: a construct whose
// meaning differs between the two and that is not rewritten here (the caller then scans without
// Hyperscan).
#include <optional>
#include <string>
#include <string_view>

namespace relforge::triage {

struct HyperscanPattern {
  std::string text;
  bool case_insensitive = false;  // has (?i): RE2 folds non-ASCII letters too, Hyperscan does not
};

// `drop_anchors`: remove ^ $ \A \z \b \B (a pattern without its assertions matches at least where
// it did), so that the result also matches a raw log line that still has its timestamp prefix.
// \S becomes [^\t\n\f\r ] everywhere: RE2's \s lacks \v, Hyperscan's has it.
std::optional<HyperscanPattern> to_hyperscan(std::string_view re2, bool drop_anchors);

}  // namespace relforge::triage
