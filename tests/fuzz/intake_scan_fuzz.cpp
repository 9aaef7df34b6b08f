// The webhook intake's SAX scans (ci_relay/intake_scan, job_scan) against the DOM reading the
// worker does later (nlohmann::json::parse + json_fields.hpp): for any body, both accept the same
// bodies (a JSON object), and pick the same repository.full_name and workflow_job fields, so the
// intake never files a delivery under a repository the worker would not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ci_relay/intake_scan.hpp"
#include "ci_relay/job_scan.hpp"
#include "ci_relay/json_fields.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace relay = relforge::ci_relay;
using nlohmann::json;

void check_job(const json& payload, const relay::WorkflowJobFields& job) {
  const json& wj = relay::field(payload, "workflow_job");
  FUZZ_CHECK(job.id == relay::int_field(wj, "id"), "workflow_job.id");
  FUZZ_CHECK(job.run_id == relay::int_field(wj, "run_id"), "workflow_job.run_id");
  FUZZ_CHECK(job.run_attempt == relay::int_field(wj, "run_attempt"), "workflow_job.run_attempt");
  FUZZ_CHECK(job.name == relay::text_field(wj, "name"), "workflow_job.name");
  FUZZ_CHECK(job.head_sha == relay::text_field(wj, "head_sha"), "workflow_job.head_sha");
  FUZZ_CHECK(job.workflow_name == relay::text_field(wj, "workflow_name"), "workflow_job.workflow_name");
  FUZZ_CHECK(job.status == relay::text_field(wj, "status"), "workflow_job.status");
  FUZZ_CHECK(job.created_at == relay::text_field(wj, "created_at"), "workflow_job.created_at");
  FUZZ_CHECK(job.started_at == relay::text_field(wj, "started_at"), "workflow_job.started_at");
  FUZZ_CHECK(job.completed_at == relay::text_field(wj, "completed_at"), "workflow_job.completed_at");
  FUZZ_CHECK(job.html_url == relay::text_field(wj, "html_url"), "workflow_job.html_url");
  FUZZ_CHECK(job.runner_name == relay::text_field(wj, "runner_name"), "workflow_job.runner_name");
  FUZZ_CHECK(job.conclusion == relay::optional_text(wj, "conclusion"), "workflow_job.conclusion");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto scan = relay::scan_delivery(body);
  const auto job_scan = relay::scan_delivery("workflow_job", body);

  const json payload = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  const bool accepted = !payload.is_discarded() && payload.is_object();
  FUZZ_CHECK(scan.has_value() == accepted, "the intake accepts exactly the JSON objects");
  FUZZ_CHECK(job_scan.has_value() == accepted, "the job scan accepts exactly the JSON objects");
  if (!accepted) return 0;

  const std::string repo = relay::text_field(relay::field(payload, "repository"), "full_name");
  FUZZ_CHECK(scan->repo == repo, "the intake reads repository.full_name as the worker does");
  FUZZ_CHECK(job_scan->repo == repo, "the job scan reads repository.full_name as the worker does");
  FUZZ_CHECK(job_scan->job.has_value(), "a workflow_job scan carries the job fields");
  check_job(payload, *job_scan->job);
  return 0;
}
