#pragma once
// Early return for Result: `TRY(expr);` returns the error of a failed Result (or Status) from the
// enclosing function; `TRY_ASSIGN(auto x, expr);` does the same, else moves the value into `x`.
#include <utility>

#include "core/error.hpp"

#if defined(TRY) || defined(TRY_ASSIGN)
#error "TRY/TRY_ASSIGN are already defined; core/try.hpp defines them for relforge::Result"
#endif

#define RELFORGE_TRY_CONCAT_INNER(a, b) a##b
#define RELFORGE_TRY_CONCAT(a, b) RELFORGE_TRY_CONCAT_INNER(a, b)

#define TRY(expr)                                                                          \
  do {                                                                                     \
    auto&& relforge_try_result_ = (expr);                                                  \
    if (!relforge_try_result_)                                                             \
      return ::tl::unexpected<::relforge::Error>(std::move(relforge_try_result_.error())); \
  } while (false)

#define RELFORGE_TRY_ASSIGN_IMPL(tmp, lhs, expr)                                \
  auto tmp = (expr);                                                            \
  if (!tmp) return ::tl::unexpected<::relforge::Error>(std::move(tmp.error())); \
  lhs = std::move(*tmp)

#define TRY_ASSIGN(lhs, expr) \
  RELFORGE_TRY_ASSIGN_IMPL(RELFORGE_TRY_CONCAT(relforge_try_, __LINE__), lhs, expr)
