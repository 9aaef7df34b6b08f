#include "platform/xml.hpp"

#include <gtest/gtest.h>

#include <string>

namespace relforge::platform {
namespace {

TEST(XmlTree, ReadsAnS3ListingWithEntitiesAndCdata) {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>a&amp;b</NextContinuationToken>"
      "<Contents><Key>whl/a&lt;1&gt;&#x2B;&#43;.whl</Key><Size>12</Size><ETag>&quot;e&quot;</ETag></Contents>"
      "<!-- a comment --><Contents><Key><![CDATA[x&y<z]]></Key></Contents>"
      "<CommonPrefixes><Prefix>whl/cpu/</Prefix></CommonPrefixes></ListBucketResult>\n";
  auto root = parse_xml(body, "listing", "S3 listing");
  ASSERT_TRUE(root) << root.error().describe();
  EXPECT_EQ(root->name, "ListBucketResult");
  EXPECT_EQ(root->attributes.at("xmlns"), "http://s3.amazonaws.com/doc/2006-03-01/");
  EXPECT_EQ(root->child_text("IsTruncated"), "true");
  EXPECT_EQ(root->child_text("NextContinuationToken"), "a&b");
  EXPECT_EQ(root->child_text("Missing", "fallback"), "fallback");
  ASSERT_EQ(root->children.size(), 5u);
  EXPECT_EQ(root->children[2].child_text("Key"), "whl/a<1>++.whl");
  EXPECT_EQ(root->children[2].child_text("Size"), "12");
  EXPECT_EQ(root->children[2].child_text("ETag"), "\"e\"");
  EXPECT_EQ(root->children[3].child_text("Key"), "x&y<z");
  EXPECT_EQ(root->children[4].find("Prefix")->text, "whl/cpu/");
}

TEST(XmlTree, RefusesWhatIsNotWellFormed) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "has no XML element (is it a S3 listing?)"},
      {"<html>oops", "ends inside <html> (truncated?)"},
      {"Service Unavailable", "has no XML element (is it a S3 listing?)"},
      {"Bad <b>Gateway</b>", "does not start with an XML element"},
      {"<a><b></a>", "has </a> where </b> was expected"},
      {"<a>x &unknown; y</a>", "has an unknown entity &unknown;"},
      {"<a>x & y</a>", "has a bare '&' in text"},
      {"<a>&#xD800;</a>", "has an invalid character reference &#xD800;"},
      {"<a/><b/>", "has a second root element <b>"},
      {"<a x=1/>", "has an unquoted attribute value in <a>"},
  };
  for (const auto& [text, expected] : cases) {
    auto root = parse_xml(text, "answer.xml", "S3 listing");
    ASSERT_FALSE(root) << text;
    EXPECT_EQ(root.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(root.error().message().find("answer.xml:1: not a valid S3 listing: it " + expected),
              std::string::npos)
        << root.error().message();
  }
}

TEST(XmlTree, NoDocumentCanDefineAnEntity) {
  // Billion laughs: an internal subset is refused, and an entity is never expanded, only the five
  // predefined ones and character references are decoded, once.
  const std::string laughs =
      "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 "
      "\"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]><lolz>&lol2;</lolz>";
  auto refused = parse_xml(laughs, "laughs.xml", "S3 listing");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("does not start with an XML element"), std::string::npos)
      << refused.error().message();
  auto inside = parse_xml("<a><!DOCTYPE a [<!ENTITY x \"y\">]>&x;</a>", "inside.xml", "S3 listing");
  ASSERT_FALSE(inside);
  EXPECT_NE(inside.error().message().find("unknown entity &x;"), std::string::npos)
      << inside.error().message();
  auto once = parse_xml("<a>&amp;lt;&#38;#60;&#x3C;</a>", "once.xml", "S3 listing");
  ASSERT_TRUE(once) << once.error().describe();
  EXPECT_EQ(once->text, "&lt;&#60;<");
}

TEST(XmlTree, BoundsNesting) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  auto refused = parse_xml(deep, "deep.xml", "document", 64);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("nests elements deeper than 64"), std::string::npos);
  EXPECT_TRUE(parse_xml(deep, "deep.xml", "document", 100));
}

TEST(XmlReader, PullsElementsAndLeavesTextUndecodedUntilAsked) {
  // A bare '&' in text is refused only when the text is asked for: the JUnit reader never asks.
  XmlReader reader("<r><c name='a&amp;b'/><d>1 & 2</d></r>", "r.xml", "report");
  XmlElement element;
  bool self_closing = false;
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::start);
  EXPECT_EQ(element.name, "r");
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::start);
  EXPECT_EQ(element.name, "c");
  EXPECT_TRUE(self_closing);
  EXPECT_EQ(element.attributes.at("name"), "a&b");
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::start);
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::end);
  EXPECT_EQ(element.name, "d");
  EXPECT_FALSE(reader.text());
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::end);
  ASSERT_EQ(reader.next(element, self_closing).value(), XmlReader::Event::done);
}

}  // namespace
}  // namespace relforge::platform
