"""Oracle for tests/packaging/wheel_oracle_test.cpp: answers with packaging 26.3 (on PYTHONPATH).

Usage: PYTHONPATH=<shared>/oracles/packaging-26.3 /usr/bin/python3 oracle_wheels.py FILE
           one answer line per input line of FILE
       ... oracle_wheels.py --unicode   Python's \\w, \\d and str.lower() tables

Input lines are "KIND<TAB>HEX" (HEX: the UTF-8 bytes of the case). String fields of the answers
are hex too, so any byte survives the round trip. Answers:
  wheel  ok NAME VERSION BUILD_NUMBER|- BUILD_TAG|- TAGS   or   err EXCEPTION MESSAGE
  name   CANONICAL WHEEL_COMPONENT VALID(0/1)
  tag    ok TAGS   or   err EXCEPTION MESSAGE
  canon  canonicalize_version(TEXT) canonicalize_version(TEXT, strip_trailing_zero=False)
TAGS is the sorted expanded tag strings joined with ','.
"""
import re
import sys

import packaging
from packaging.tags import parse_tag
from packaging.utils import canonicalize_name, canonicalize_version, parse_wheel_filename


def h(text):
    return text.encode("utf-8", "surrogateescape").hex()


def tag_list(tags):
    return h(",".join(sorted(str(t) for t in tags)))


def err(exc):
    return "err\t%s\t%s" % (type(exc).__name__, h(str(exc)))


def answer_wheel(filename):
    try:
        name, version, build, tags = parse_wheel_filename(filename)
    except Exception as exc:  # InvalidWheelFilename, InvalidVersion, ValueError
        return err(exc)
    number, tag = ("-", "-") if build == () else (str(build[0]), h(build[1]))
    return "\t".join(["ok", h(name), h(str(version)), number, tag, tag_list(tags)])


# The name rule of PEP 508 / core metadata, in the spec's own regex.
_VALID_NAME = re.compile(r"([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])", re.IGNORECASE | re.ASCII)


def is_valid_name(name):
    return _VALID_NAME.fullmatch(name) is not None


def answer_name(name):
    wheel_form = re.sub(r"[-_.]+", "_", name).lower()
    return "\t".join([h(canonicalize_name(name)), h(wheel_form), "1" if is_valid_name(name) else "0"])


def answer_tag(text):
    try:
        return "ok\t" + tag_list(parse_tag(text))
    except Exception as exc:
        return err(exc)


def answer_canon(text):
    try:
        return "\t".join([h(canonicalize_version(text)), h(canonicalize_version(text, strip_trailing_zero=False))])
    except ValueError as exc:  # more digits than int() takes
        return err(exc)


def unicode_tables():
    word, digit = re.compile(r"\w"), re.compile(r"\d")
    out = []
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        is_word = word.match(c) is not None
        value = int(c) if digit.match(c) else -1
        lower = c.lower()
        if is_word or value >= 0 or lower != c:
            out.append("%x\t%d\t%d\t%s" % (cp, is_word, value, h(lower)))
    return out


def main():
    if packaging.__version__ != "26.3":
        sys.exit("oracle: expected packaging 26.3 on PYTHONPATH, found %s at %s" % (packaging.__version__, packaging.__file__))
    if sys.argv[1:] == ["--unicode"]:
        print("\n".join(unicode_tables()))
        return
    answers = {"wheel": answer_wheel, "name": answer_name, "tag": answer_tag, "canon": answer_canon}
    with open(sys.argv[1], "rb") as f:
        for line in f.read().decode("ascii").splitlines():
            kind, _, data = line.partition("\t")
            text = bytes.fromhex(data).decode("utf-8", "surrogateescape")
            print(answers[kind](text))


if __name__ == "__main__":
    main()
