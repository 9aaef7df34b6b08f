#pragma once
// JUnit XML test reports as pytest (--junitxml) and GoogleTest (--gtest_output=xml) write them,
// read by a small strict XML reader: a file that is not well-formed XML is an error, not zero tests.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::triage {

enum class TestOutcome { passed, failed, error, skipped };

std::string_view outcome_name(TestOutcome outcome);

struct JUnitCase {
  std::string name;       // "test_matmul" / "Reshape"
  std::string classname;  // "test.test_ops.TestOps" / "TensorShape"
  std::string file;       // pytest's file attribute; empty for gtest
  TestOutcome outcome = TestOutcome::passed;
  std::string message;  // the failure/error/skipped message attribute
  double seconds = 0;
  std::uint32_t failed_reruns = 0;  // <rerun>, <rerunFailure>, <flakyFailure>, ... before the outcome

  // The identity used by DISABLED issues: "test_matmul (test.test_ops.TestOps)".
  std::string test_id() const;
};

// `origin` names the report in errors.
Result<std::vector<JUnitCase>> parse_junit(std::string_view xml, std::string_view origin);

}  // namespace relforge::triage
