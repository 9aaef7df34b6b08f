#!/usr/bin/python3
"""Regenerates triage/default_rules.cpp from triage/default_rules.toml (run after editing the TOML;
tests/triage/rules_test.cpp fails while the two differ)."""
import pathlib

here = pathlib.Path(__file__).resolve().parent
src = (here / "default_rules.toml").read_text()
assert ")toml\"" not in src
(here / "default_rules.cpp").write_text(
    "// Generated from triage/default_rules.toml by triage/embed_default_rules.py; tests check the\n"
    "// two stay equal.\n"
    '#include "triage/rules.hpp"\n\nnamespace relforge::triage {\n\n'
    "std::string_view default_rules_toml() {\n"
    '  static constexpr std::string_view k_text =\n      R"toml(' + src + ')toml";\n'
    "  return k_text;\n}\n\n}  // namespace relforge::triage\n")
