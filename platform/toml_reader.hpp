#pragma once
// Typed access to a parsed toml++ document with relforge's diagnostics: every error names
// file:line:col, unknown keys get a "did you mean", and keys come back in file order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "core/error.hpp"
#include "platform/diagnostics.hpp"

namespace relforge::platform {

class TomlReader {
public:
  explicit TomlReader(std::string file) : m_file(std::move(file)) {}

  const std::string& file() const { return m_file; }
  static Location location(const toml::node& node);
  static Location location(const toml::key& key);
  tl::unexpected<Error> fail(Location at, std::string message) const;

  // The table's entries sorted by their position in the file (toml++ tables are unordered).
  static std::vector<std::pair<const toml::key*, const toml::node*>> ordered(const toml::table& table);

  // Every key of `table` must be in `allowed`; `context` names the table ("[[matrix.axis]]").
  Status check_keys(const toml::table& table, const std::vector<std::string>& allowed,
                    std::string_view context) const;

  // A string value; `what` names it in messages ("'name' in [[matrix.axis]]").
  Result<std::string> string(const toml::node& node, std::string_view what) const;
  // A string, integer, float or boolean rendered as text (booleans: true/false).
  Result<std::string> scalar(const toml::node& node, std::string_view what) const;
  // A string or an array of strings (at least one).
  Result<std::vector<std::string>> strings(const toml::node& node, std::string_view what) const;
  // An array of tables (`[[matrix.axis]]` or an inline array of inline tables).
  Result<std::vector<const toml::table*>> tables(const toml::node& node, std::string_view what) const;
  Result<const toml::table*> table(const toml::node& node, std::string_view what) const;
  // An integer in [min, max] (a float or a quoted number is refused, not rounded or parsed).
  Result<std::int64_t> integer(const toml::node& node, std::string_view what, std::int64_t min,
                               std::int64_t max) const;
  Result<bool> boolean(const toml::node& node, std::string_view what) const;
  // A string naming one of `names` (ASCII case-insensitive); its index, else "did you mean".
  Result<std::size_t> choice(const toml::node& node, std::string_view what,
                             const std::vector<std::string>& names) const;

  static std::string type_name(const toml::node& node);

private:
  std::string m_file;
};

}  // namespace relforge::platform
