#pragma once
// Typed row access over a Statement: each_row<T...>(stmt, f) steps to the end calling f with the
// row's first columns read as T... (std::int64_t, double, std::string, optional<string/int64>,
// bool); first_row<T...>(stmt) reads one row (nullopt when there is none). Errors stop the walk.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "platform/sqlite.hpp"

namespace relforge::platform {

template <class T>
T column_as(const Statement& stmt, int column) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    return stmt.column_int(column);
  } else if constexpr (std::is_same_v<T, bool>) {
    return stmt.column_int(column) != 0;
  } else if constexpr (std::is_same_v<T, double>) {
    return stmt.column_double(column);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return stmt.column_text(column);
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    return stmt.column_optional_text(column);
  } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
    return stmt.is_null(column) ? std::nullopt : std::optional<std::int64_t>(stmt.column_int(column));
  } else {
    static_assert(sizeof(T) == 0, "column_as: no reader for this column type");
  }
}

template <class... T>
std::tuple<T...> row_as(const Statement& stmt) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<T...>(column_as<T>(stmt, static_cast<int>(I))...);
  }
  (std::index_sequence_for<T...>{});
}

// Calls on_row(T...) for every remaining row.
template <class... T, class F>
Status each_row(Statement& stmt, F&& on_row) {
  for (;;) {
    auto more = stmt.step();
    if (!more) return tl::unexpected(more.error());
    if (!*more) return {};
    std::apply(on_row, row_as<T...>(stmt));
  }
}

// The next row as T...; nullopt when the statement has no more rows.
template <class... T>
Result<std::optional<std::tuple<T...>>> first_row(Statement& stmt) {
  auto more = stmt.step();
  if (!more) return tl::unexpected(more.error());
  if (!*more) return std::optional<std::tuple<T...>>();
  return std::optional<std::tuple<T...>>(row_as<T...>(stmt));
}

}  // namespace relforge::platform
