#include "triage/junit.hpp"

#include <charconv>
#include <map>

#include "core/text.hpp"
#include "core/try.hpp"
#include "core/utf8.hpp"
#include "platform/xml.hpp"

namespace relforge::triage {
namespace {

using platform::XmlReader;
using Element = platform::XmlElement;

std::string attribute(const Element& element, const std::string& name) {
  const auto it = element.attributes.find(name);
  return it == element.attributes.end() ? std::string() : it->second;
}

// The encoding an XML declaration names, lower case; empty when there is none.
std::string declared_encoding(std::string_view xml) {
  if (xml.substr(0, 3) == "\xEF\xBB\xBF") xml.remove_prefix(3);
  if (xml.substr(0, 5) != "<?xml") return "";
  const std::string_view declaration = xml.substr(0, xml.find("?>"));
  const std::size_t key = declaration.find("encoding");
  if (key == std::string_view::npos) return "";
  std::size_t at = declaration.find_first_of("\"'", key);
  if (at == std::string_view::npos) return "";
  const std::size_t end = declaration.find(declaration[at], at + 1);
  if (end == std::string_view::npos) return "";
  return core::to_lower(declaration.substr(at + 1, end - at - 1));
}

std::string latin1_to_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(0xC0 | (byte >> 6)));
      out.push_back(static_cast<char>(0x80 | (byte & 0x3F)));
    }
  }
  return out;
}

// The report as UTF-8, which every name stored from it must be: Latin-1 is converted, a stray
// byte in UTF-8 (a test's raw output in a message) becomes U+FFFD, any other encoding is refused.
Result<std::string> as_utf8(std::string_view xml, std::string_view origin) {
  const std::string encoding = declared_encoding(xml);
  if (encoding == "iso-8859-1" || encoding == "latin1" || encoding == "latin-1" || encoding == "iso8859-1" ||
      encoding == "us-ascii" || encoding == "ascii")
    return latin1_to_utf8(xml);
  if (!encoding.empty() && encoding != "utf-8" && encoding != "utf8")
    return fail(ErrorCategory::invalid_input, std::string(origin) +
                                                  ": the JUnit XML report declares encoding '" + encoding +
                                                  "', which is not read: re-encode it as UTF-8 (iconv -f " +
                                                  encoding + " -t UTF-8) and change its declaration");
  return core::is_valid_utf8(xml) ? std::string(xml) : core::to_valid_utf8(xml);
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

Result<std::vector<JUnitCase>> parse_junit(std::string_view raw, std::string_view origin) {
  TRY_ASSIGN(const std::string xml, as_utf8(raw, origin));
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
