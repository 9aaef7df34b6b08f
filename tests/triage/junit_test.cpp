#include "triage/junit.hpp"

#include <gtest/gtest.h>

#include "platform/fs.hpp"
#include "tests/support/paths.hpp"

namespace relforge::triage {
namespace {

std::string junit_fixture(const std::string& name) {
  auto text = platform::read_file(std::filesystem::path(relforge::test::source_dir()) /
                                  "tests/fixtures/triage" / name);
  EXPECT_TRUE(text.has_value());
  return text ? *text : std::string();
}

TEST(JUnit, ReadsPytestReports) {
  auto cases = parse_junit(junit_fixture("junit_pytest.xml"), "junit_pytest.xml");
  ASSERT_TRUE(cases) << cases.error().describe();
  ASSERT_EQ(cases->size(), 5u);
  EXPECT_EQ((*cases)[0].test_id(), "test_add_cpu_float32 (test.test_ops.TestCommonCPU)");
  EXPECT_EQ((*cases)[0].outcome, TestOutcome::passed);
  EXPECT_EQ((*cases)[0].file, "test/test_ops.py");
  EXPECT_EQ((*cases)[1].outcome, TestOutcome::failed);
  EXPECT_EQ((*cases)[1].message,
            "AssertionError: Tensor-likes are not close!\nMismatched elements: 3 / 64 (4.7%)");
  EXPECT_EQ((*cases)[2].outcome, TestOutcome::passed);
  EXPECT_EQ((*cases)[2].failed_reruns, 1u);
  EXPECT_EQ((*cases)[3].outcome, TestOutcome::skipped);
  EXPECT_EQ((*cases)[3].message, "not built with MKL");
  EXPECT_EQ((*cases)[4].outcome, TestOutcome::error);
  EXPECT_DOUBLE_EQ((*cases)[1].seconds, 0.503);
}

TEST(JUnit, ReadsGoogleTestReports) {
  auto cases = parse_junit(junit_fixture("junit_gtest.xml"), "junit_gtest.xml");
  ASSERT_TRUE(cases) << cases.error().describe();
  ASSERT_EQ(cases->size(), 3u);
  EXPECT_EQ((*cases)[1].test_id(), "Reshape (TensorShape)");
  EXPECT_EQ((*cases)[1].outcome, TestOutcome::failed);
  EXPECT_EQ((*cases)[1].message.substr(0, 31), "/opt/work/tests/shape_test.cpp:");
  EXPECT_EQ((*cases)[2].outcome, TestOutcome::skipped);
}

TEST(JUnit, RejectsWhatIsNotXml) {
  for (const std::string& text : {std::string("FAILED test_x.py::test_a - boom\n"), std::string(""),
                                  std::string("<testsuite><testcase name='a'></testsuite>"),
                                  std::string("<testsuite><testcase name=a/></testsuite>"),
                                  std::string("<testsuite name='x' a='&bogus;'/>"),
                                  std::string("<testsuite><testcase name='a'>"),  // truncated
                                  std::string("{\"tests\": []}")}) {
    auto cases = parse_junit(text, "report.xml");
    ASSERT_FALSE(cases) << text;
    EXPECT_EQ(cases.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(cases.error().message().find("report.xml"), std::string::npos);
  }
}

TEST(JUnit, WellFormedXmlThatIsNotAReportIsRefused) {
  auto cases = parse_junit("<html><body/></html>", "page.xml");
  ASSERT_FALSE(cases);
  EXPECT_NE(cases.error().message().find("not a JUnit report"), std::string::npos);
}

TEST(JUnit, DecodesEntitiesAndCharacterReferences) {
  auto cases = parse_junit(
      "<testsuite><testcase classname=\"a&amp;b\" name='t&lt;1&gt;'><failure message=\"&quot;x&quot; "
      "&#233;&#x2713;\"/>"
      "</testcase></testsuite>",
      "e.xml");
  ASSERT_TRUE(cases) << cases.error().describe();
  ASSERT_EQ(cases->size(), 1u);
  EXPECT_EQ((*cases)[0].test_id(), "t<1> (a&b)");
  EXPECT_EQ((*cases)[0].message, "\"x\" \xC3\xA9\xE2\x9C\x93");
}

TEST(JUnit, EveryNameReadIsUtf8WhateverTheReportsEncoding) {
  // Stored names end up in JSON (the disable list, --json): Latin-1 is converted, a stray byte in
  // a UTF-8 report becomes U+FFFD, an encoding that is not read is refused naming what to do.
  auto latin1 = parse_junit(
      "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<testsuites><testsuite name=\"p\">"
      "<testcase classname=\"t.T\" name=\"test_caf\xe9\"><failure message=\"na\xefve\"/></testcase>"
      "</testsuite></testsuites>\n",
      "latin1.xml");
  ASSERT_TRUE(latin1) << latin1.error().describe();
  ASSERT_EQ(latin1->size(), 1u);
  EXPECT_EQ((*latin1)[0].test_id(), "test_caf\xc3\xa9 (t.T)");
  EXPECT_EQ((*latin1)[0].message, "na\xc3\xafve");

  auto stray = parse_junit(
      "<testsuite name=\"p\"><testcase classname=\"t.T\" name=\"test_\xff\"/></testsuite>", "stray.xml");
  ASSERT_TRUE(stray) << stray.error().describe();
  EXPECT_EQ((*stray)[0].name, "test_\xef\xbf\xbd");

  auto utf16 = parse_junit("<?xml version='1.0' encoding='UTF-16'?><testsuite name=\"p\"/>", "utf16.xml");
  ASSERT_FALSE(utf16);
  EXPECT_EQ(utf16.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(utf16.error().message().find("utf16.xml"), std::string::npos) << utf16.error().message();
  EXPECT_NE(utf16.error().message().find("iconv -f utf-16 -t UTF-8"), std::string::npos)
      << utf16.error().message();
}

}  // namespace
}  // namespace relforge::triage
