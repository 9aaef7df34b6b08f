#pragma once
// Templates such as "manywheel-py{python|underscore}-{accel.type}": compiled once against the
// expansion's field layout, rendered per cell without lookups. `{{` and `}}` are literal braces.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::matrix {

enum class Filter : std::uint8_t { underscore, nodot, lower, upper, dash };

// The filter names in the order of the Filter enum.
const std::vector<std::string>& filter_names();

// What a `{name}` refers to: a field slot of the cell, or a constant (a var, the project name).
struct NameBinding {
  static constexpr std::uint32_t k_constant = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint32_t k_id = k_constant - 1;  // the cell's id (build_id templates only)
  std::uint32_t slot = k_constant;
  std::string constant;
};

// Returns the binding of a name, or an error message saying why the name cannot be used.
using NameResolver = std::function<Result<NameBinding>(std::string_view name)>;

class Template {
public:
  // Fails (invalid_input, message naming the template) on an unknown name or filter, or on an
  // unbalanced brace; the caller adds where the template is.
  static Result<Template> compile(std::string_view text, const NameResolver& resolve);

  void render_to(std::string& out, const std::vector<std::string>& values, std::string_view id = {}) const;
  // The most bytes render() can produce for these values (filters never lengthen a value), so a
  // caller can refuse a runaway value before building it.
  std::size_t size_bound(const std::vector<std::string>& values, std::string_view id = {}) const;
  // The same from value sizes alone (saturating, so that estimates of runaway values stay ordered).
  std::uint64_t size_bound(const std::vector<std::uint64_t>& sizes, std::uint64_t id_size = 0) const;
  std::string render(const std::vector<std::string>& values, std::string_view id = {}) const;

  const std::string& text() const { return m_text; }
  // The field slots the template reads (to order dependent computations).
  std::vector<std::uint32_t> slots() const;

private:
  struct Segment {
    std::string literal;  // used when slot == k_constant (filters already applied)
    std::uint32_t slot = NameBinding::k_constant;
    std::vector<Filter> filters;
  };
  std::string m_text;
  std::vector<Segment> m_segments;
  std::size_t m_literal_size = 0;  // to reserve once per render
};

// Applies filters to `value`, appending the result to `out`.
void append_filtered(std::string& out, std::string_view value, const std::vector<Filter>& filters);

}  // namespace relforge::matrix
