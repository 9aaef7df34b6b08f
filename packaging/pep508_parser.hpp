#pragma once
// Internal: the PEP 508 tokenizer and recursive-descent parser shared by parse_marker and
// parse_requirement, a port of packaging 26.3's _tokenizer.py and _parser.py (same token rules,
// same grammar, so the same inputs pass and fail).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "packaging/marker.hpp"

namespace relforge::packaging {

struct ParsedRequirementParts {
  std::string name;
  std::vector<std::string> extras;
  std::string specifier;  // the specifier tokens and commas, spaces dropped
  std::string url;
  bool has_marker = false;
  Marker marker;
};

// packaging's _normalize_extra_values: the value compared with `extra` (or in `extras`,
// `dependency_groups`) in PEP 503 form.
void normalize_marker_extras(MarkerList& list);

class MarkerParser {
public:
  explicit MarkerParser(std::string_view source) : m_source(source) {}

  Result<Marker> full_marker();
  Result<ParsedRequirementParts> requirement();

private:
  // Each returns the length of the token at m_pos, or npos when it does not match there.
  std::size_t match(std::string_view rule) const;
  bool check(std::string_view rule) const { return match(rule) != std::string_view::npos; }
  std::string read(std::string_view rule);
  void consume(std::string_view rule);
  Status expect(std::string_view rule, std::string_view expected, std::string* text = nullptr);
  tl::unexpected<Error> syntax_error(std::string_view message, std::size_t start) const;

  Result<MarkerList> marker();
  Result<MarkerElement> marker_atom();
  Result<MarkerOperand> marker_var();
  Result<std::string> marker_op();
  Result<std::vector<std::string>> extras();
  Result<std::string> specifier();
  Result<MarkerList> requirement_marker(std::size_t span_start, std::string_view expected);

  std::string_view m_source;
  std::size_t m_pos = 0;
};

}  // namespace relforge::packaging
