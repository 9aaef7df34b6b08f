"""Oracle for tests/packaging/unicode_nfd_test.cpp: Python's unicodedata (standard library only).

Usage: /usr/bin/python3 oracle_unicode.py --code-points
           version<TAB>UNIDATA_VERSION, then for every code point (surrogates aside):
           nfd<TAB>CP<TAB>HEX   where normalize('NFD', c) is not c
           ccc<TAB>CP<TAB>N     where combining(c) is not 0
       /usr/bin/python3 oracle_unicode.py FILE
           FILE's lines are "HEX_A<TAB>HEX_B" (the UTF-8 bytes of two names); one answer a line:
           NFD(A) NFD(B) (hex) EQUAL FOLDED_EQUAL (0/1), FOLDED_EQUAL comparing the NFD forms
           with ASCII letters lower-cased.
CP is hexadecimal.
"""
import sys
import unicodedata

ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def nfd(text):
    return unicodedata.normalize("NFD", text)


def code_points():
    yield "version\t" + unicodedata.unidata_version
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        decomposed = nfd(c)
        if decomposed != c:
            yield "nfd\t%X\t%s" % (cp, decomposed.encode("utf-8").hex())
        if unicodedata.combining(c):
            yield "ccc\t%X\t%d" % (cp, unicodedata.combining(c))


def answer(line):
    a, b = (bytes.fromhex(part).decode("utf-8") for part in line.split("\t"))
    da, db = nfd(a), nfd(b)
    folded = da.translate(ASCII_LOWER) == db.translate(ASCII_LOWER)
    return "%s\t%s\t%d\t%d" % (da.encode("utf-8").hex(), db.encode("utf-8").hex(), da == db, folded)


def main():
    if sys.argv[1:] == ["--code-points"]:
        print("\n".join(code_points()))
        return
    with open(sys.argv[1], encoding="ascii") as cases:
        print("\n".join(answer(line.rstrip("\n")) for line in cases))


if __name__ == "__main__":
    main()
