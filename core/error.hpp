#pragma once
// Errors as values: every fallible library call returns Result<T>; only cli/ prints them and picks
// the exit code. An Error carries a category, a message a user can act on, and context frames.
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace relforge {

enum class ErrorCategory {
  invalid_input,     // the user's input is wrong: fix the input
  not_found,         // a named thing does not exist
  conflict,          // the operation would overwrite or contradict existing state
  io,                // the file system or a process failed
  network,           // a remote peer failed or could not be reached
  auth,              // credentials missing or rejected
  integrity,         // a digest, signature or format check failed
  nothing_selected,  // a query or selection matched nothing (cibuildwheel's exit 3)
  internal,          // a bug or an impossible state
};

std::string_view category_name(ErrorCategory category);

class Error {
public:
  Error(ErrorCategory category, std::string message);

  ErrorCategory category() const { return m_category; }
  const std::string& message() const { return m_message; }
  // Outermost context first: "loading examples/x.toml: axis 'python': ..."
  const std::vector<std::string>& context() const { return m_context; }

  // Adds a frame describing what was being done when the error happened.
  Error& with_context(std::string frame) &;
  Error&& with_context(std::string frame) &&;

  // "context: context: message"
  std::string describe() const;

private:
  ErrorCategory m_category;
  std::string m_message;
  std::vector<std::string> m_context;
};

template <typename T>
using Result = tl::expected<T, Error>;

using Status = Result<void>;

// `return fail(ErrorCategory::not_found, "...");` inside a function returning Result<T>.
inline tl::unexpected<Error> fail(ErrorCategory category, std::string message) {
  return tl::unexpected<Error>(Error(category, std::move(message)));
}

// Prepends a context frame to the error of a failed result; passes success through.
template <typename T>
Result<T> with_context(Result<T>&& result, std::string frame) {
  if (!result) result.error().with_context(std::move(frame));
  return std::move(result);
}

}  // namespace relforge
