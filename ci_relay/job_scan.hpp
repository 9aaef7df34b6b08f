#pragma once
// The fields of a workflow_job delivery that normalisation uses, read in one SAX pass over the
// body (no document is built). Same reading as json_fields.hpp: a missing or mistyped field is
// empty/absent, and of repeated keys the last one counts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace relforge::ci_relay {

struct WorkflowJobFields {
  std::string repo;  // repository.full_name
  // workflow_job.*
  std::optional<std::int64_t> id, run_id, run_attempt;
  std::string name, head_sha, workflow_name, status, created_at, started_at, completed_at, html_url,
      runner_name;
  std::optional<std::string> conclusion;
};

// nullopt when the body is not valid JSON or its top level is not an object.
std::optional<WorkflowJobFields> scan_workflow_job(std::string_view body);

}  // namespace relforge::ci_relay
