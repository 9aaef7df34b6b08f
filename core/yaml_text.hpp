#pragma once
// YAML's reading of text, for every YAML relforge writes (workflows, autoscaler configs): which
// characters a YAML 1.1 parser does not read back as themselves, and a double-quoted scalar that
// reads back as exactly the given UTF-8 string. Pure.
#include <string>
#include <string_view>

namespace relforge::core {

// True when `text` holds a character that YAML 1.1 takes for a line break inside a scalar (NEL
// U+0085, U+2028, U+2029), that PyYAML refuses in a document (the other C1 controls), or a
// byte-order mark: such text must be written double-quoted with escapes.
bool has_yaml_unsafe_character(std::string_view text);

// `text` as a YAML double-quoted scalar: '"' and '\' escaped, ASCII controls as \n, \t, \r or
// \xHH, the characters above as \uXXXX; all other UTF-8 as it is.
std::string yaml_double_quoted(std::string_view text);

}  // namespace relforge::core
