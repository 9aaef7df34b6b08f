#pragma once
// The one XML reader (JUnit reports, S3 answers): strict over the subset tools write — declarations,
// comments, CDATA, DOCTYPE without an internal subset, elements, attributes, the predefined and
// numeric entities. Text that is not well-formed is an invalid_input error naming origin:line.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
};

// A pull reader. `what` names the document in errors: "<origin>:<line>: not a valid <what>: it ...".
class XmlReader {
public:
  XmlReader(std::string_view text, std::string_view origin, std::string_view what);

  enum class Event { start, end, done };

  // On start, `element` holds the element and `self_closing` says whether an end event follows.
  Result<Event> next(XmlElement& element, bool& self_closing);
  // The character data between the previous tag and the one just read (entities decoded, CDATA
  // as written, comments left out): after an end event, a leaf element's text.
  Result<std::string> text() const;

private:
  bool skip_past(std::string_view terminator);
  tl::unexpected<Error> error(const std::string& what) const;
  Result<Event> read_start(XmlElement& element, bool& self_closing);
  Result<std::string> decode(std::string_view raw, std::string_view where) const;

  std::string_view m_text;
  std::string_view m_origin;
  std::string_view m_what;
  std::size_t m_pos = 0;
  std::vector<std::string> m_stack;
  bool m_seen_root = false;
  struct Piece {
    std::string_view raw;
    bool cdata;
  };
  std::vector<Piece> m_pieces;  // character data since the previous tag
};

// A whole document as a tree, for small answers read by name (S3 listings and errors).
struct XmlNode {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // character data directly inside this element
  std::vector<XmlNode> children;

  // The first child named `child`, or null.
  const XmlNode* find(std::string_view child) const;
  // The text of the first child named `child`, or `fallback` when there is none.
  std::string child_text(std::string_view child, std::string_view fallback = "") const;
};

// The root element; nesting deeper than `max_depth` is an error (the tree is freed recursively).
Result<XmlNode> parse_xml(std::string_view text, std::string_view origin, std::string_view what,
                          std::size_t max_depth = 64);

}  // namespace relforge::platform
