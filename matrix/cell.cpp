#include "matrix/cell.hpp"

#include <cassert>
#include <cstring>

namespace relforge::matrix {

Cell::Cell(std::shared_ptr<const FieldNames> names, std::string_view id, std::string_view build_id,
           const std::vector<std::string>& values, const ValueTypes* types)
    : m_names(std::move(names)) {
  assert(m_names && m_names->size() == values.size());
  assert(types == nullptr || types->size() == values.size());
  const auto count = static_cast<std::uint32_t>(values.size() + 2);
  const std::size_t header = sizeof(std::uint32_t) * (count + 1) + values.size();
  std::size_t total = header + id.size() + build_id.size();
  for (const auto& value : values) total += value.size();
  m_data.reserve(total);
  m_data.resize(header);
  std::memcpy(m_data.data(), &count, sizeof count);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto type = types == nullptr ? ValueType::string : (*types)[i];
    m_data[sizeof(std::uint32_t) * (count + 1) + i] = static_cast<char>(type);
  }
  std::uint32_t index = 1;
  const auto add = [&](std::string_view text) {
    m_data.append(text);
    const auto end = static_cast<std::uint32_t>(m_data.size() - header);
    std::memcpy(m_data.data() + sizeof(std::uint32_t) * index++, &end, sizeof end);
  };
  add(id);
  add(build_id);
  for (const auto& value : values) add(value);
}

std::uint32_t Cell::word(std::size_t i) const {
  std::uint32_t out = 0;
  std::memcpy(&out, m_data.data() + sizeof(std::uint32_t) * i, sizeof out);
  return out;
}

std::size_t Cell::header() const {
  return sizeof(std::uint32_t) * (count() + 1) + size();
}

std::string_view Cell::piece(std::size_t i) const {
  const std::uint32_t begin = i == 0 ? 0 : word(i);
  return std::string_view(m_data).substr(header() + begin, word(i + 1) - begin);
}

ValueType Cell::type(std::size_t i) const {
  return static_cast<ValueType>(m_data[sizeof(std::uint32_t) * (count() + 1) + i]);
}

std::optional<std::string_view> Cell::find(std::string_view field) const {
  if (m_names) {
    for (std::size_t i = 0; i < size(); ++i) {
      if ((*m_names)[i] == field) return value(i);
    }
  }
  if (field == "id") return id();
  if (field == "build_id") return build_id();
  return std::nullopt;
}

std::vector<std::string> Cell::values() const {
  std::vector<std::string> out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.emplace_back(value(i));
  return out;
}

ValueTypes Cell::types() const {
  ValueTypes out;
  out.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) out.push_back(type(i));
  return out;
}

}  // namespace relforge::matrix
