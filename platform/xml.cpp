#include "platform/xml.hpp"

#include <algorithm>
#include <charconv>

#include "core/try.hpp"

namespace relforge::platform {
namespace {

bool only_space(std::string_view text) {
  // A UTF-8 byte order mark may precede the first element.
  for (const char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\xef' && c != '\xbb' && c != '\xbf')
      return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == ':' || static_cast<unsigned char>(c) >= 0x80;
}

void append_utf8(std::string& out, unsigned code) {
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

}  // namespace

XmlReader::XmlReader(std::string_view text, std::string_view origin, std::string_view what)
    : m_text(text), m_origin(origin), m_what(what) {}

Result<XmlReader::Event> XmlReader::next(XmlElement& element, bool& self_closing) {
  m_pieces.clear();
  while (true) {
    const auto lt = m_text.find('<', m_pos);
    const auto data =
        m_text.substr(m_pos, lt == std::string_view::npos ? std::string_view::npos : lt - m_pos);
    if (lt == std::string_view::npos) {
      if (!m_stack.empty()) return error("ends inside <" + m_stack.back() + "> (truncated?)");
      if (!m_seen_root) return error("has no XML element (is it a " + std::string(m_what) + "?)");
      return Event::done;
    }
    if (!m_seen_root && !only_space(data)) {
      return error("does not start with an XML element (is it a " + std::string(m_what) + "?)");
    }
    if (!data.empty()) m_pieces.push_back({data, false});
    m_pos = lt;
    const auto rest = m_text.substr(m_pos);
    if (rest.rfind("<?", 0) == 0) {
      if (!skip_past("?>")) return error("has an unterminated <? ... ?>");
    } else if (rest.rfind("<!--", 0) == 0) {
      if (!skip_past("-->")) return error("has an unterminated comment");
    } else if (rest.rfind("<![CDATA[", 0) == 0) {
      const std::size_t begin = m_pos + 9;
      if (!skip_past("]]>")) return error("has an unterminated CDATA section");
      m_pieces.push_back({m_text.substr(begin, m_pos - 3 - begin), true});
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

Result<std::string> XmlReader::text() const {
  std::string out;
  for (const auto& piece : m_pieces) {
    if (piece.cdata) {
      out += piece.raw;
      continue;
    }
    TRY_ASSIGN(const std::string decoded, decode(piece.raw, "text"));
    out += decoded;
  }
  return out;
}

bool XmlReader::skip_past(std::string_view terminator) {
  const auto end = m_text.find(terminator, m_pos);
  if (end == std::string_view::npos) return false;
  m_pos = end + terminator.size();
  return true;
}

tl::unexpected<Error> XmlReader::error(const std::string& what) const {
  const auto end = m_text.begin() + static_cast<std::ptrdiff_t>(std::min(m_pos, m_text.size()));
  const auto line = 1 + std::count(m_text.begin(), end, '\n');
  return fail(ErrorCategory::invalid_input, std::string(m_origin) + ":" + std::to_string(line) +
                                                ": not a valid " + std::string(m_what) + ": it " + what);
}

Result<XmlReader::Event> XmlReader::read_start(XmlElement& element, bool& self_closing) {
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
    TRY_ASSIGN(element.attributes[attribute], decode(m_text.substr(i, close - i), "an attribute"));
    i = close + 1;
  }
  self_closing = m_text[i] == '/';
  m_pos = i + (self_closing ? 2 : 1);
  if (m_seen_root && m_stack.empty()) return error("has a second root element <" + element.name + ">");
  m_seen_root = true;
  if (!self_closing) m_stack.push_back(element.name);
  return Event::start;
}

Result<std::string> XmlReader::decode(std::string_view raw, std::string_view where) const {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '&') {
      out.push_back(raw[i]);
      continue;
    }
    const auto semi = raw.find(';', i);
    if (semi == std::string_view::npos) return error("has a bare '&' in " + std::string(where));
    const auto entity = raw.substr(i + 1, semi - i - 1);
    if (entity == "lt") {
      out += '<';
    } else if (entity == "gt") {
      out += '>';
    } else if (entity == "amp") {
      out += '&';
    } else if (entity == "quot") {
      out += '"';
    } else if (entity == "apos") {
      out += '\'';
    } else if (entity.size() > 1 && entity[0] == '#') {
      const bool hex = entity[1] == 'x' || entity[1] == 'X';
      const auto digits = entity.substr(hex ? 2 : 1);
      unsigned code = 0;
      const auto [end, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), code, hex ? 16 : 10);
      if (ec != std::errc() || end != digits.data() + digits.size() || code == 0 || code > 0x10FFFF ||
          (code >= 0xD800 && code <= 0xDFFF)) {
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

const XmlNode* XmlNode::find(std::string_view child) const {
  for (const auto& node : children) {
    if (node.name == child) return &node;
  }
  return nullptr;
}

std::string XmlNode::child_text(std::string_view child, std::string_view fallback) const {
  const auto* node = find(child);
  return node ? node->text : std::string(fallback);
}

Result<XmlNode> parse_xml(std::string_view text, std::string_view origin, std::string_view what,
                          std::size_t max_depth) {
  XmlReader reader(text, origin, what);
  XmlNode root;
  // Ancestors of the element being read; each is the last child of the one before it, so adding
  // children to the innermost never moves an open node.
  std::vector<XmlNode*> open;
  XmlElement element;
  bool self_closing = false;
  while (true) {
    TRY_ASSIGN(const auto event, reader.next(element, self_closing));
    if (event == XmlReader::Event::done) return root;
    if (!open.empty()) {
      TRY_ASSIGN(const std::string data, reader.text());
      open.back()->text += data;
    }
    if (event == XmlReader::Event::end) {
      open.pop_back();
      continue;
    }
    if (open.size() >= max_depth) {
      return fail(ErrorCategory::invalid_input, std::string(origin) + ": not a valid " + std::string(what) +
                                                    ": it nests elements deeper than " +
                                                    std::to_string(max_depth));
    }
    XmlNode* node = &root;
    if (!open.empty()) node = &open.back()->children.emplace_back();
    node->name = std::move(element.name);
    node->attributes = std::move(element.attributes);
    if (!self_closing) open.push_back(node);
  }
}

}  // namespace relforge::platform
