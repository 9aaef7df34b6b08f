#pragma once
// The intake's one pass over a delivery body: checks it is a JSON object and picks out
// repository.full_name, without building a document (the worker parses it fully later).
#include <optional>
#include <string>
#include <string_view>

namespace relforge::ci_relay {

struct IntakeScan {
  std::string repo;  // repository.full_name ("" when absent or not a string)
};

// nullopt when the body is not valid JSON or its top level is not an object.
std::optional<IntakeScan> scan_delivery(std::string_view body);

}  // namespace relforge::ci_relay
