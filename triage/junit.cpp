#include "triage/junit.hpp"

#include <charconv>
#include <map>

namespace relforge::triage {
namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
};

// A pull reader over the subset of XML that test reports use: declarations, comments, CDATA,
// DOCTYPE without an internal subset, elements, attributes and the predefined/numeric entities.
class XmlReader {
public:
  XmlReader(std::string_view text, std::string_view origin) : m_text(text), m_origin(origin) {}

  enum class Event { start, end, done };

  // On start, `element` holds the element and `self_closing` says whether an end event follows.
  Result<Event> next(Element& element, bool& self_closing) {
    while (true) {
      const auto lt = m_text.find('<', m_pos);
      if (lt == std::string_view::npos) {
        if (!m_stack.empty()) return error("ends inside <" + m_stack.back() + "> (truncated?)");
        if (!m_seen_root) return error("has no XML element (is it a JUnit XML report?)");
        return Event::done;
      }
      if (!m_seen_root && !only_space(m_text.substr(m_pos, lt - m_pos))) {
        return error("does not start with an XML element (is it a JUnit XML report?)");
      }
      m_pos = lt;
      const auto rest = m_text.substr(m_pos);
      if (rest.rfind("<?", 0) == 0) {
        if (!skip_past("?>")) return error("has an unterminated <? ... ?>");
      } else if (rest.rfind("<!--", 0) == 0) {
        if (!skip_past("-->")) return error("has an unterminated comment");
      } else if (rest.rfind("<![CDATA[", 0) == 0) {
        if (!skip_past("]]>")) return error("has an unterminated CDATA section");
      } else if (rest.rfind("<!", 0) == 0) {
        if (!skip_past(">")) return error("has an unterminated declaration");
      } else if (rest.rfind("</", 0) == 0) {
        const auto close = m_text.find('>', m_pos);
        if (close == std::string_view::npos) return error("has an unterminated end tag");
        const auto name = trim(m_text.substr(m_pos + 2, close - m_pos - 2));
        if (m_stack.empty() || m_stack.back() != name) {
          return error("has </" + std::string(name) + "> where " +
                       (m_stack.empty() ? std::string("no element") : "</" + m_stack.back() + ">") +
                       " was expected");
        }
        m_stack.pop_back();
        m_pos = close + 1;
        element.name = std::string(name);
        return Event::end;
      } else {
        return read_start(element, self_closing);
      }
    }
  }

private:
  static bool only_space(std::string_view text) {
    for (const char c : text) {
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\xef' && c != '\xbb' && c != '\xbf')
        return false;
    }
    return true;
  }
  static std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t'))
      text.remove_prefix(1);
    while (!text.empty() &&
           (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r')) {
      text.remove_suffix(1);
    }
    return text;
  }
  static bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
  }

  bool skip_past(std::string_view terminator) {
    const auto end = m_text.find(terminator, m_pos);
    if (end == std::string_view::npos) return false;
    m_pos = end + terminator.size();
    return true;
  }

  tl::unexpected<Error> error(const std::string& what) const {
    std::size_t line = 1;
    for (std::size_t i = 0; i < std::min(m_pos, m_text.size()); ++i) line += m_text[i] == '\n' ? 1 : 0;
    return fail(ErrorCategory::invalid_input, std::string(m_origin) + ":" + std::to_string(line) +
                                                  ": not a valid JUnit XML report: it " + what);
  }

  Result<Event> read_start(Element& element, bool& self_closing) {
    std::size_t i = m_pos + 1;
    const std::size_t begin = i;
    while (i < m_text.size() && name_char(m_text[i])) ++i;
    if (i == begin) return error("has '<' not followed by an element name");
    element.name = std::string(m_text.substr(begin, i - begin));
    element.attributes.clear();
    while (true) {
      while (i < m_text.size() &&
             (m_text[i] == ' ' || m_text[i] == '\t' || m_text[i] == '\n' || m_text[i] == '\r'))
        ++i;
      if (i >= m_text.size()) return error("ends inside the tag <" + element.name + ">");
      if (m_text[i] == '>' || (m_text[i] == '/' && i + 1 < m_text.size() && m_text[i + 1] == '>')) break;
      const std::size_t name_begin = i;
      while (i < m_text.size() && name_char(m_text[i])) ++i;
      if (i == name_begin || i >= m_text.size() || m_text[i] != '=') {
        m_pos = i;
        return error("has a malformed attribute in <" + element.name + ">");
      }
      const std::string attribute(m_text.substr(name_begin, i - name_begin));
      ++i;
      if (i >= m_text.size() || (m_text[i] != '"' && m_text[i] != '\'')) {
        m_pos = i;
        return error("has an unquoted attribute value in <" + element.name + ">");
      }
      const char quote = m_text[i++];
      const auto close = m_text.find(quote, i);
      if (close == std::string_view::npos) return error("has an unterminated attribute value");
      auto value = decode(m_text.substr(i, close - i));
      if (!value) return tl::unexpected(value.error());
      element.attributes[attribute] = std::move(*value);
      i = close + 1;
    }
    self_closing = m_text[i] == '/';
    m_pos = i + (self_closing ? 2 : 1);
    if (m_seen_root && m_stack.empty()) return error("has a second root element <" + element.name + ">");
    m_seen_root = true;
    if (!self_closing) m_stack.push_back(element.name);
    return Event::start;
  }

  Result<std::string> decode(std::string_view raw) const {
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out.push_back(raw[i]);
        continue;
      }
      const auto semi = raw.find(';', i);
      if (semi == std::string_view::npos) return error("has a bare '&' in an attribute");
      const auto entity = raw.substr(i + 1, semi - i - 1);
      if (entity == "lt")
        out += '<';
      else if (entity == "gt")
        out += '>';
      else if (entity == "amp")
        out += '&';
      else if (entity == "quot")
        out += '"';
      else if (entity == "apos")
        out += '\'';
      else if (entity.size() > 1 && entity[0] == '#') {
        const bool hex = entity[1] == 'x' || entity[1] == 'X';
        const auto digits = entity.substr(hex ? 2 : 1);
        unsigned code = 0;
        const auto [end, ec] =
            std::from_chars(digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
        if (ec != std::errc() || end != digits.data() + digits.size() || code == 0 || code > 0x10FFFF) {
          return error("has an invalid character reference &" + std::string(entity) + ";");
        }
        append_utf8(out, code);
      } else {
        return error("has an unknown entity &" + std::string(entity) + ";");
      }
      i = semi;
    }
    return out;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string_view m_text;
  std::string_view m_origin;
  std::size_t m_pos = 0;
  std::vector<std::string> m_stack;
  bool m_seen_root = false;
};

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
  XmlReader reader(xml, origin);
  std::vector<JUnitCase> cases;
  Element element;
  bool self_closing = false;
  bool in_case = false;
  bool saw_suite = false;
  while (true) {
    auto event = reader.next(element, self_closing);
    if (!event) return tl::unexpected(event.error());
    if (*event == XmlReader::Event::done) break;
    if (*event == XmlReader::Event::end) {
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
