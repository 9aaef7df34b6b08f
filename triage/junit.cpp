#include "triage/junit.hpp"

#include <charconv>
#include <map>

#include "core/try.hpp"
#include "platform/xml.hpp"

namespace relforge::triage {
namespace {

using platform::XmlReader;
using Element = platform::XmlElement;

std::string attribute(const Element& element, const std::string& name) {
  const auto it = element.attributes.find(name);
  return it == element.attributes.end() ? std::string() : it->second;
}

bool is_rerun(const std::string& name) {
  return name == "rerun" || name == "rerunFailure" || name == "rerunError" || name == "flakyFailure" ||
         name == "flakyError";
}

}  // namespace

std::string_view outcome_name(TestOutcome outcome) {
  switch (outcome) {
    case TestOutcome::passed:
      return "passed";
    case TestOutcome::failed:
      return "failed";
    case TestOutcome::error:
      return "error";
    case TestOutcome::skipped:
      return "skipped";
  }
  return "unknown";
}

std::string JUnitCase::test_id() const {
  return classname.empty() ? name : name + " (" + classname + ")";
}

Result<std::vector<JUnitCase>> parse_junit(std::string_view xml, std::string_view origin) {
  XmlReader reader(xml, origin, "JUnit XML report");
  std::vector<JUnitCase> cases;
  Element element;
  bool self_closing = false;
  bool in_case = false;
  bool saw_suite = false;
  while (true) {
    TRY_ASSIGN(const auto event, reader.next(element, self_closing));
    if (event == XmlReader::Event::done) break;
    if (event == XmlReader::Event::end) {
      if (element.name == "testcase") in_case = false;
      continue;
    }
    if (element.name == "testsuite" || element.name == "testsuites") saw_suite = true;
    if (element.name == "testcase") {
      JUnitCase test;
      test.name = attribute(element, "name");
      test.classname = attribute(element, "classname");
      test.file = attribute(element, "file");
      const auto time = attribute(element, "time");
      if (!time.empty()) std::from_chars(time.data(), time.data() + time.size(), test.seconds);
      // GoogleTest marks skipped and not-run tests on the testcase itself.
      const auto result = attribute(element, "result");
      if (result == "skipped" || result == "suppressed" || attribute(element, "status") == "notrun") {
        test.outcome = TestOutcome::skipped;
      }
      cases.push_back(std::move(test));
      in_case = !self_closing;
      continue;
    }
    if (!in_case || cases.empty()) continue;
    auto& test = cases.back();
    if (element.name == "failure" || element.name == "error") {
      test.outcome = element.name == "failure" ? TestOutcome::failed : TestOutcome::error;
      if (test.message.empty()) test.message = attribute(element, "message");
    } else if (element.name == "skipped") {
      if (test.outcome == TestOutcome::passed) test.outcome = TestOutcome::skipped;
      if (test.message.empty()) test.message = attribute(element, "message");
    } else if (is_rerun(element.name)) {
      ++test.failed_reruns;
    }
  }
  if (!saw_suite) {
    return fail(
        ErrorCategory::invalid_input,
        std::string(origin) + ": well-formed XML but not a JUnit report (no <testsuite>/<testsuites>)");
  }
  return cases;
}

}  // namespace relforge::triage
