#include "core/error.hpp"

namespace relforge {

std::string_view category_name(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::invalid_input:
      return "invalid_input";
    case ErrorCategory::not_found:
      return "not_found";
    case ErrorCategory::conflict:
      return "conflict";
    case ErrorCategory::io:
      return "io";
    case ErrorCategory::network:
      return "network";
    case ErrorCategory::auth:
      return "auth";
    case ErrorCategory::integrity:
      return "integrity";
    case ErrorCategory::nothing_selected:
      return "nothing_selected";
    case ErrorCategory::internal:
      return "internal";
  }
  return "internal";
}

Error::Error(ErrorCategory category, std::string message)
    : m_category(category), m_message(std::move(message)) {}

Error& Error::with_context(std::string frame) & {
  m_context.insert(m_context.begin(), std::move(frame));
  return *this;
}

Error&& Error::with_context(std::string frame) && {
  m_context.insert(m_context.begin(), std::move(frame));
  return std::move(*this);
}

std::string Error::describe() const {
  std::string out;
  for (const auto& frame : m_context) {
    out += frame;
    out += ": ";
  }
  out += m_message;
  return out;
}

}  // namespace relforge
