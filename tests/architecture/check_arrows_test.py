#!/usr/bin/env python3
"""Runs check_arrows.py on small trees written to a temp dir: a clean one passes, one with a
deliberate breach of each kind fails with one exact line per breach, a broken table is exit 2."""

import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_arrows.py")
sys.path.insert(0, HERE)
import check_arrows  # noqa: E402

TABLE = """# plan

```arrows
core      ->
platform  -> core
matrix    -> platform core
channels  -> platform core   # a comment
cli       -> *
<curl/*> CURL::libcurl              -> platform
<nlohmann/*> nlohmann_json::nlohmann_json -> matrix cli
<unistd.h> <sys/*>                  -> platform cli
heavy <nlohmann/json.hpp>
```
"""

CLEAN = {
    "docs/ARCHITECTURE.md": TABLE,
    "core/CMakeLists.txt": "relforge_module(core)\n",
    "core/error.hpp": "#pragma once\n#include <string>\n",
    "platform/CMakeLists.txt": "relforge_module(platform DEPS relforge::core CURL::libcurl)\n",
    "platform/http.cpp": '#include "core/error.hpp"\n#include <curl/curl.h>\n#include <sys/stat.h>\n',
    "matrix/CMakeLists.txt": "# comment: relforge::channels\n"
    "relforge_module(matrix DEPS relforge::platform relforge::core nlohmann_json::nlohmann_json)\n",
    "matrix/cell.hpp": '#pragma once\n#include <nlohmann/json.hpp>\n#include "platform/http.hpp"\n',
    "matrix/cell.cpp": '#include "matrix/cell.hpp"\n// #include "channels/store.hpp" is only a comment\n',
    "channels/CMakeLists.txt": "relforge_module(channels DEPS relforge::platform relforge::core)\n"
    'target_link_libraries(relforge_channels INTERFACE "$<$<NOT:$<BOOL:$<TARGET_PROPERTY:X>>>:relforge_channels_db>")\n',
    "channels/store.cpp": '#include "platform/http.hpp"\n#include "core/error.hpp"\n',
    "cli/CMakeLists.txt": "add_library(relforge_cli STATIC x.cpp)\n"
    "target_link_libraries(relforge_cli PUBLIC relforge::channels relforge::matrix\n"
    "  nlohmann_json::nlohmann_json)\n",
    "cli/main.cpp": '#include "channels/store.hpp"\n#include "matrix/cell.hpp"\n#include <unistd.h>\n',
}

BREACHES = {
    "matrix/cell.cpp": '#include "matrix/cell.hpp"\n#include "channels/store.hpp"\n',
    "matrix/fetch.hpp": "#pragma once\n\n#include <curl/curl.h>\n",
    "matrix/sneak.cpp": '#include "matrix/../channels/store.hpp"\n  #  include <channels/store.hpp>\n',
    "matrix/deep/nested.hpp": '#include "cli/runtime.hpp"\n',
    "matrix/CMakeLists.txt": "relforge_module(matrix DEPS relforge::channels relforge::platform relforge::core\n"
    "  nlohmann_json::nlohmann_json CURL::libcurl)\n",
    "channels/store.cpp": '#include "platform/http.hpp"\n#include <yaml.h>\n#include <sys/mman.h>\n'
    '#include "store_impl.hpp"\n#include "curl/curl.h"\n',
    "platform/CMakeLists.txt": "relforge_module(platform DEPS CURL::libcurl)\n",
    "extra/CMakeLists.txt": "relforge_module(extra DEPS relforge::core)\n",
    "cli/main.cpp": '#include "channels/store.hpp"\n#include <nlohmann/json.hpp>\n',
    "cli/CMakeLists.txt": "target_link_libraries(relforge_cli PUBLIC relforge::channels)\n"
    "target_link_libraries(relforge_cli PRIVATE relforge_matrix_db)\n",
}

EXPECTED = [
    'matrix/cell.cpp:2: matrix includes "channels/store.hpp", but the arrows allow matrix -> {core, platform}',
    'matrix/sneak.cpp:1: matrix includes "matrix/../channels/store.hpp", but the arrows allow matrix -> '
    "{core, platform}",
    "matrix/sneak.cpp:2: matrix includes <channels/store.hpp>, but the arrows allow matrix -> {core, platform}",
    'matrix/deep/nested.hpp:1: matrix includes "cli/runtime.hpp", but the arrows allow matrix -> {core, platform}',
    "matrix/fetch.hpp:3: matrix includes <curl/curl.h>, but the arrows allow <curl/curl.h> only in {platform}",
    "channels/store.cpp:2: channels includes <yaml.h>, which no row of the arrow table names; "
    "add a row saying which modules may use it",
    "channels/store.cpp:3: channels includes <sys/mman.h>, but the arrows allow <sys/mman.h> only in "
    "{cli, platform}",
    'channels/store.cpp:4: channels includes "store_impl.hpp", but quoted includes name a module folder '
    'from the repository root ("matrix/expand.hpp")',
    'channels/store.cpp:5: channels includes <curl/curl.h>, but the arrows allow <curl/curl.h> only in {platform}',
    "matrix/CMakeLists.txt: matrix links relforge::channels, but the arrows allow matrix -> {core, platform}",
    "matrix/CMakeLists.txt: matrix links CURL::libcurl, but the arrows allow it only in {platform}",
    "platform/CMakeLists.txt: platform includes core/ headers but does not link relforge::core",
    "extra/CMakeLists.txt: module extra has no row in the arrow table",
    "cli/CMakeLists.txt: cli links relforge_matrix_db, which no row of the arrow table names",
    "cli/CMakeLists.txt: cli includes a header of nlohmann_json::nlohmann_json but does not link it",
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def check(files):
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, files)
        out, err = io.StringIO(), io.StringIO()
        code = check_arrows.main(["--root", root], out, err)
        return code, out.getvalue(), err.getvalue()


class CheckArrows(unittest.TestCase):
    def test_a_tree_that_keeps_to_the_table_passes(self):
        code, out, err = check(CLEAN)
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")
        self.assertIn("arrows: 5 modules keep to the table", out)

    def test_each_breach_is_one_line_with_file_line_and_the_allowed_arrows(self):
        code, out, err = check({**CLEAN, **BREACHES})
        self.assertEqual(code, 1, out + err)
        lines = err.splitlines()
        for expected in EXPECTED:
            self.assertIn(expected, lines)
        self.assertIn(f"{len(EXPECTED)} arrow violation(s)", lines[-1])
        self.assertEqual(len(lines), len(EXPECTED) + 1, err)

    def test_the_script_exits_with_the_status_ctest_reads(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {**CLEAN, **BREACHES})
            run = subprocess.run([sys.executable, CHECKER, "--root", root], capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn(EXPECTED[0], run.stderr.splitlines())

    def test_heavy_headers_are_reported_but_never_fail(self):
        code, out, _ = check(CLEAN)
        self.assertEqual(code, 0)
        self.assertIn("heavy: matrix/cell.hpp includes <nlohmann/json.hpp>: 2 translation units pull it in", out)

    def test_a_link_without_an_include_is_a_note_not_a_failure(self):
        code, out, _ = check({**CLEAN, "channels/store.cpp": '#include "core/error.hpp"\n'})
        self.assertEqual(code, 0)
        self.assertIn("note: channels/CMakeLists.txt: channels links relforge::platform but includes nothing "
                      "from platform/", out)

    def test_a_table_that_cannot_be_read_is_exit_2_not_a_pass(self):
        for doc, message in [
            ("# plan\n", "no ```arrows block"),
            ("```arrows\ncore ->\n", "never closed"),
            ("```arrows\ncore -> platform\n```\n", "core -> platform, but platform has no row"),
            ("```arrows\ncore ->\ncore ->\n```\n", "module core has two rows"),
            ("```arrows\ncore platform\n```\n", "a row is"),
        ]:
            code, _, err = check({**CLEAN, "docs/ARCHITECTURE.md": doc})
            self.assertEqual(code, 2, doc)
            self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
