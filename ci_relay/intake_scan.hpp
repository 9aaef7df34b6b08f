#pragma once
// The intake's one pass over a delivery body: checks it is a JSON object and picks out
// repository.full_name, without building a document (the worker parses it fully later).
#include <optional>
#include <string>
#include <string_view>

#include "ci_relay/job_scan.hpp"

namespace relforge::ci_relay {

struct IntakeScan {
  std::string repo;  // repository.full_name ("" when absent or not a string)
  // For a workflow_job event: what normalisation reads, so the same pass serves the worker.
  std::optional<WorkflowJobFields> job;
};

// nullopt when the body is not valid JSON, its top level is not an object, or it nests deeper
// than k_max_json_nesting.
std::optional<IntakeScan> scan_delivery(std::string_view body);
// The same, reading a workflow_job event's fields too (still one pass over the body).
std::optional<IntakeScan> scan_delivery(std::string_view event, std::string_view body);

}  // namespace relforge::ci_relay
