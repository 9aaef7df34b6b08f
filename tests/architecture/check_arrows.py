#!/usr/bin/env python3
"""Checks every #include and every module link against the arrow table in docs/ARCHITECTURE.md.

Usage: check_arrows.py [--root DIR]
Exit status: 0 when the tree keeps to the table, 1 with one line per violation, 2 when the table
itself cannot be read. Heavy headers (the `heavy` row) are reported, never failed on.

Python rather than a C++ test: the check reads text, needs no build of its own, and so runs (in a
few tens of milliseconds) before anything has compiled.
"""

import argparse
import fnmatch
import os
import re
import sys

TABLE_START = "```arrows"
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CALL = re.compile(r"\b(relforge_module|target_link_libraries)\s*\(([^)]*)\)", re.S)
CMAKE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "DEPS"}


class TableError(Exception):
    pass


class Table:
    """The parsed `arrows` block: module rows, third-party rows, the heavy-header row."""

    def __init__(self):
        self.modules = {}  # module -> set of modules it may use ("*" = any)
        self.libraries = []  # (headers, link targets, allowed modules, line)
        self.heavy = []

    def may_use(self, module, other):
        allowed = self.modules[module]
        return other == module or "*" in allowed or other in allowed

    def library_for_header(self, header):
        for row in self.libraries:
            if any(fnmatch.fnmatchcase(header, pattern) for pattern in row[0]):
                return row
        return None

    def library_for_target(self, target):
        for row in self.libraries:
            if target in row[1]:
                return row
        return None


def parse_table(doc_path):
    try:
        with open(doc_path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"{doc_path}: cannot read the arrow table: {e.strerror}")
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == TABLE_START)
    except StopIteration:
        raise TableError(f"{doc_path}: no {TABLE_START} block; the arrow table lives there")
    table = Table()
    end = None
    for number in range(start + 1, len(lines)):
        text = lines[number].split("#", 1)[0].strip()
        where = f"{doc_path}:{number + 1}"
        if lines[number].strip() == "```":
            end = number
            break
        if not text:
            continue
        if "->" not in text:
            if text.startswith("heavy "):
                table.heavy = [h.strip("<>") for h in text.split()[1:]]
                continue
            raise TableError(f"{where}: a row is `module -> modules` or `<header> Target -> modules`")
        left, right = (part.split() for part in text.split("->", 1))
        if not left:
            raise TableError(f"{where}: nothing left of '->'")
        if all(not token.startswith("<") and "::" not in token for token in left):
            if len(left) != 1:
                raise TableError(f"{where}: one module per row, got {' '.join(left)}")
            if left[0] in table.modules:
                raise TableError(f"{where}: module {left[0]} has two rows")
            table.modules[left[0]] = set(right)
        else:
            headers = [t[1:-1] for t in left if t.startswith("<") and t.endswith(">")]
            targets = [t for t in left if not t.startswith("<")]
            table.libraries.append((headers, targets, set(right), where))
    if end is None:
        raise TableError(f"{doc_path}:{start + 1}: the {TABLE_START} block is never closed")
    if not table.modules:
        raise TableError(f"{doc_path}:{start + 1}: the arrow table names no module")
    for module, allowed in sorted(table.modules.items()):
        for other in sorted(allowed - {"*"} - set(table.modules)):
            raise TableError(f"{doc_path}: {module} -> {other}, but {other} has no row of its own")
    for headers, targets, allowed, where in table.libraries:
        for other in sorted(allowed - {"*"} - set(table.modules)):
            raise TableError(f"{where}: {other} is not a module of the table")
    return table


def sources(root, module):
    folder = os.path.join(root, module)
    for directory, subdirs, files in os.walk(folder):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join(directory, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = INCLUDE.match(line)
            if match:
                yield number, match.group(1), match.group(2)


def braces(names):
    return "{" + ", ".join(sorted(names)) + "}"


def allowed_modules(table, module):
    return braces(table.modules[module])


def check_includes(root, table, violations, used):
    for module in table.modules:
        for path in sources(root, module):
            rel = os.path.relpath(path, root)
            for number, kind, header in includes(path):
                # Normalised so that "matrix/../channels/x.hpp" counts as the channels header it is.
                first = os.path.normpath(header).split("/", 1)[0]
                if "/" in header and first in table.modules:
                    used[module].add(first)
                    if not table.may_use(module, first):
                        header = f'"{header}"' if kind == '"' else f"<{header}>"
                        violations.append(f'{rel}:{number}: {module} includes {header}, but the arrows '
                                          f"allow {module} -> {allowed_modules(table, module)}")
                    continue
                row = table.library_for_header(header)
                if row is None:
                    if kind == '"':
                        violations.append(f'{rel}:{number}: {module} includes "{header}", but quoted includes '
                                          'name a module folder from the repository root ("matrix/expand.hpp")')
                    # Standard headers (<vector>) carry no '.' and no '/'; anything else must have a row.
                    elif "." in header or "/" in header:
                        violations.append(f"{rel}:{number}: {module} includes <{header}>, which no row of the "
                                          "arrow table names; add a row saying which modules may use it")
                    continue
                used[module].update("lib:" + t for t in row[1])
                if module not in row[2] and "*" not in row[2]:
                    violations.append(f"{rel}:{number}: {module} includes <{header}>, but the arrows allow "
                                      f"<{header}> only in {braces(row[2])}")


def links(root, module):
    """The targets `<module>/CMakeLists.txt` links into relforge_<module>."""
    path = os.path.join(root, module, "CMakeLists.txt")
    try:
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"#[^\n]*", "", f.read())
    except OSError:
        return None
    targets = []
    for function, arguments in CALL.findall(text):
        tokens = arguments.split()
        if not tokens:
            continue
        if function == "relforge_module" and tokens[0] == module:
            targets += tokens[1:]
        elif function == "target_link_libraries" and tokens[0] == "relforge_" + module:
            targets += tokens[1:]
    return [t for t in targets if t not in CMAKE_KEYWORDS]


def own_library(module, target):
    """relforge_<module>_<part>: a library of the module's own (a generated table, say), also as
    the value of a generator expression. It is no arrow to another module."""
    return re.search(r"(?:^|:)relforge_" + re.escape(module) + r"_\w+>?$", target.strip('"')) is not None


def check_links(root, table, violations, notes, used):
    for module in table.modules:
        linked = links(root, module)
        rel = os.path.join(module, "CMakeLists.txt")
        if linked is None:
            violations.append(f"{rel}: missing; the table names a module {module}")
            continue
        linked_modules = set()
        for target in linked:
            if target.startswith("relforge::"):
                other = target[len("relforge::"):]
                linked_modules.add(other)
                if other not in table.modules:
                    violations.append(f"{rel}: {module} links {target}, which the arrow table does not name")
                elif not table.may_use(module, other):
                    violations.append(f"{rel}: {module} links {target}, but the arrows allow "
                                      f"{module} -> {allowed_modules(table, module)}")
                elif other not in used[module]:
                    notes.append(f"{rel}: {module} links {target} but includes nothing from {other}/")
                continue
            if own_library(module, target):
                continue
            row = table.library_for_target(target)
            if row is None:
                violations.append(f"{rel}: {module} links {target}, which no row of the arrow table names")
            elif module not in row[2] and "*" not in row[2]:
                violations.append(f"{rel}: {module} links {target}, but the arrows allow it only in "
                                  f"{braces(row[2])}")
        # An include of a module not linked builds only while some other link drags it in.
        for other in sorted(m for m in used[module] if not m.startswith("lib:")):
            if other != module and other not in linked_modules and table.may_use(module, other):
                violations.append(f"{rel}: {module} includes {other}/ headers but does not link "
                                  f"relforge::{other}")
        for target in sorted(t[4:] for t in used[module] if t.startswith("lib:")):
            row = table.library_for_target(target)
            allowed = row and (module in row[2] or "*" in row[2])
            if allowed and not set(row[1]) & set(linked):
                violations.append(f"{rel}: {module} includes a header of {target} but does not link it")


def check_folders(root, table, violations):
    for name in sorted(os.listdir(root)):
        cmake = os.path.join(root, name, "CMakeLists.txt")
        if name in table.modules or not os.path.isfile(cmake):
            continue
        with open(cmake, encoding="utf-8") as f:
            if re.search(r"\brelforge_module\s*\(", f.read()):
                violations.append(f"{name}/CMakeLists.txt: module {name} has no row in the arrow table")
    for module in sorted(table.modules):
        if not os.path.isdir(os.path.join(root, module)):
            violations.append(f"docs/ARCHITECTURE.md: the arrow table names {module}, but {module}/ does not exist")


def heavy_report(root, table):
    """For each module header that includes a heavy header, the translation units that pull it in."""
    if not table.heavy:
        return []
    graph = {}
    units = []
    for top in sorted(os.listdir(root)):
        if top in ("build", "node_modules") or top.startswith("."):
            continue
        if not os.path.isdir(os.path.join(root, top)):
            continue
        for path in sources(root, top):
            rel = os.path.relpath(path, root)
            graph[rel] = [h for _, _, h in includes(path)]
            if rel.endswith(".cpp"):
                units.append(rel)

    reach = {}

    def closure(file):
        if file in reach:
            return reach[file]
        reach[file] = set()
        found = set()
        for header in graph.get(file, []):
            found.add(header)
            if header in graph:
                found |= closure(header)
        reach[file] = found
        return found

    lines = []
    for header in sorted(h for h in graph if h.endswith(".hpp") and h.split("/", 1)[0] in table.modules):
        direct = [h for h in graph[header] if h in table.heavy]
        for heavy in direct:
            count = sum(1 for unit in units if header in closure(unit))
            lines.append(f"heavy: {header} includes <{heavy}>: {count} translation units pull it in")
    for heavy in table.heavy:
        total = sum(1 for unit in units if heavy in closure(unit))
        lines.append(f"heavy: <{heavy}> reaches {total} of the {len(units)} .cpp files in the repository")
    return lines


def main(argv=None, out=sys.stdout, err=sys.stderr):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    args = parser.parse_args(argv)
    try:
        table = parse_table(os.path.join(args.root, "docs", "ARCHITECTURE.md"))
    except TableError as e:
        print(f"error: {e}", file=err)
        return 2
    violations, notes = [], []
    used = {module: set() for module in table.modules}
    check_folders(args.root, table, violations)
    check_includes(args.root, table, violations, used)
    check_links(args.root, table, violations, notes, used)
    for line in heavy_report(args.root, table) + [f"note: {n}" for n in notes]:
        print(line, file=out)
    for line in violations:
        print(line, file=err)
    if violations:
        print(f"{len(violations)} arrow violation(s); see 'Which way the arrows point' in docs/ARCHITECTURE.md",
              file=err)
        return 1
    print(f"arrows: {len(table.modules)} modules keep to the table", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
