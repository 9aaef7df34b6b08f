#!/usr/bin/python3
"""Regenerates the seed corpora under tests/fuzz/corpus/ from the project's fixtures and tests.

usage: tests/fuzz/make_corpus.py [TARGET...]   (from anywhere; needs python3 and a C/C++ compiler;
the pe and macho seeds need mingw-w64, clang and lld; with TARGETs only those corpora are rebuilt)
Each seed is named by the sha1 of its bytes, as libFuzzer names corpus files. The seeds are
checked in; rerun this when the fixtures change, then look at the size (`du -sh tests/fuzz/corpus`).
"""
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as out:
        out.write(data)


def cxx_strings(path):
    """The string literals of a C++ test file, with C escapes decoded."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    out = []
    for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
        try:
            out.append(ast.literal_eval('b"' + literal + '"').decode("utf-8", "surrogateescape"))
        except (ValueError, SyntaxError):
            continue
    return [s for s in out if s and not s.endswith((".hpp", ".h"))]


def versions():
    strings = cxx_strings("tests/packaging/version_test.cpp")
    seeds = [s for s in strings if len(s) < 64 and re.search(r"\d", s) and " " not in s.strip()]
    for s in sorted(set(seeds))[:80]:
        put("version", s)
    # Pairs for the order checks: each line is a version.
    chain = ["2.6.0.dev20250101+cu126", "2.6.0a1.dev1", "2.6.0rc1", "2.6.0", "2.6.0+cpu", "2.6.0.post1",
             "1!0.1", "1.0.0", "1.0", "v1.0-RC1", " 1.0.post-1 ", "1.0+abc.5", "1.0+5.abc"]
    for a, b in zip(chain, chain[1:]):
        put("version", a + "\n" + b)


def specifiers():
    strings = cxx_strings("tests/packaging/specifier_test.cpp")
    specs = sorted({s for s in strings if re.match(r"\s*(~=|==|!=|<=|>=|<|>|===)", s)})
    vers = ["2.6.0", "2.6.0+cu126", "2.7.0.dev20250301", "1.1a1", "2.6.2rc1", "3.0"]
    for i, spec in enumerate(specs[:60]):
        put("specifier", spec + "\n" + vers[i % len(vers)])
    put("specifier", "\n1.1a1")


def wheel_names():
    files = set()
    for test in ("tests/packaging/wheel_name_test.cpp", "tests/packaging/wheel_oracle_test.cpp"):
        files.update(s for s in cxx_strings(test) if s.endswith(".whl"))
    for name in sorted(files):
        put("wheel_name", name)
    for name in ("Torch_Audio", "torch-audio", "\u01c4ebug", "\u03a3igma.Name", "a..b__c"):
        put("wheel_name", name)


def build_library(work, name, source, cxx):
    src = os.path.join(work, name + (".cpp" if cxx else ".c"))
    with open(src, "w") as f:
        f.write(source)
    lib = os.path.join(work, name)
    compiler = "c++" if cxx else "cc"
    subprocess.run([compiler, "-shared", "-fPIC", "-Os", "-s", "-o", lib, src], check=True)
    return open(lib, "rb").read()


def elves(work):
    c_lib = build_library(work, "libc_only.so",
                          "#include <pthread.h>\n#include <math.h>\n"
                          "int f(pthread_t t) { return pthread_join(t, 0); }\n"
                          "double g(double x) { return sin(x); }\n", cxx=False)
    cxx_lib = build_library(work, "libcxx.so",
                            "#include <iostream>\n#include <stdexcept>\n"
                            "void hello() { std::cout << \"hi\" << std::endl; }\n"
                            "void boom() { throw std::runtime_error(\"x\"); }\n", cxx=True)
    put("elf", c_lib)
    put("elf", cxx_lib)
    return c_lib, cxx_lib


def run(*command):
    subprocess.run(list(command), check=True)
    return command[command.index("-o") + 1]


def synthetic_pe(imports, delayed):
    """A PE32+ DLL laid out by hand (as tests/packaging/pe_read_test.cpp does) with import and
    delay-load descriptors, which mingw's linker cannot produce."""
    import struct
    raw, rva = 0x200, 0x1000
    data = bytearray(raw + 0x400)
    data[0:2] = b"MZ"
    struct.pack_into("<I", data, 0x3c, 0x80)
    data[0x80:0x84] = b"PE\0\0"
    coff, optional = 0x84, 0x98
    struct.pack_into("<HHIIIHH", data, coff, 0x8664, 1, 0, 0, 0, 240, 0x2022)
    struct.pack_into("<H", data, optional, 0x20b)
    struct.pack_into("<Q", data, optional + 24, 0x180000000)
    struct.pack_into("<I", data, optional + 108, 16)
    section = optional + 240
    struct.pack_into("<8sIIII", data, section, b".idata", 0x400, rva, 0x400, raw)
    delay_at = (len(imports) + 1) * 20
    name_at = delay_at + (len(delayed) + 1) * 32
    def name(text):
        nonlocal name_at
        data[raw + name_at:raw + name_at + len(text)] = text.encode()
        at = rva + name_at
        name_at += len(text) + 1
        return at
    for i, dll in enumerate(imports):
        struct.pack_into("<IIIII", data, raw + i * 20, rva + 0x300, 0, 0, name(dll), rva + 0x300)
    for i, dll in enumerate(delayed):
        struct.pack_into("<II", data, raw + delay_at + i * 32, 1, name(dll))
    struct.pack_into("<II", data, optional + 112 + 8, rva, delay_at)
    struct.pack_into("<II", data, optional + 112 + 13 * 8, rva + delay_at, (len(delayed) + 1) * 32)
    return bytes(data)


def pes(work):
    src = os.path.join(work, "win.c")
    with open(src, "w") as f:
        f.write("#include <windows.h>\n__declspec(dllexport) int f(void) { return (int)GetTickCount(); }\n")
    for gcc in ("x86_64-w64-mingw32-gcc", "i686-w64-mingw32-gcc"):
        put("pe", open(run(gcc, "-shared", "-s", "-Os", "-o", os.path.join(work, gcc + ".dll"), src), "rb").read())
    put("pe", synthetic_pe(["KERNEL32.dll", "foo.dll"], ["nvcuda.dll", "api-ms-win-core-synch-l1-2-0.dll"]))


def fat(slices, big_endian=True):
    import struct
    order = ">" if big_endian else "<"
    header = struct.pack(order + "II", 0xcafebabe, len(slices))
    body, offset, table = b"", 4096, b""
    for cputype, data in slices:
        table += struct.pack(order + "IIIII", cputype, 0, offset, len(data), 12)
        padded = data + b"\0" * (-len(data) % 4096)
        body += padded
        offset += len(padded)
    return (header + table).ljust(4096, b"\0") + body


def machos(work):
    stub = os.path.join(work, "libSystem.tbd")
    with open(stub, "w") as f:
        f.write("--- !tapi-tbd\ntbd-version: 4\ntargets: [ x86_64-macos, arm64-macos ]\n"
                "install-name: '/usr/lib/libSystem.B.dylib'\ncurrent-version: 1319\nexports:\n"
                "  - targets: [ x86_64-macos, arm64-macos ]\n    symbols: [ _malloc, dyld_stub_binder ]\n...\n")
    src = os.path.join(work, "mac.c")
    with open(src, "w") as f:
        f.write("int dep(void);\nint f(int x) { return x + dep(); }\n")
    dep_src = os.path.join(work, "dep.c")
    with open(dep_src, "w") as f:
        f.write("int dep(void) { return 1; }\n")
    def dylib(target, name, *extra):
        return run("clang", "-target", target, "-shared", "-fuse-ld=lld", "-nostdlib", "-Os", *extra,
                   "-o", os.path.join(work, name), stub)
    dep = dylib("arm64-apple-macos11", "libdep.dylib", dep_src, "-Wl,-install_name,@rpath/libdep.dylib")
    arm = open(dylib("arm64-apple-macos11", "arm.so", src, dep, "-Wl,-rpath,@loader_path/.dylibs"), "rb").read()
    x86 = open(dylib("x86_64-apple-macos10.9", "x86.so", src, "-Wl,-undefined,dynamic_lookup"), "rb").read()
    put("macho", arm)
    put("macho", x86)
    put("macho", fat([(0x01000007, x86), (0x0100000c, arm)]))
    put("macho", fat([(0x0100000c, arm)], big_endian=False))


def wheel_bytes(files, compression):
    path = tempfile.mktemp(suffix=".whl")
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = compression
            archive.writestr(info, data)
    data = open(path, "rb").read()
    os.remove(path)
    return data


def record_line(path, data):
    import base64
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def wheels(c_lib):
    dist = "mini-1.0.dist-info"
    files = {
        "mini/__init__.py": b"VALUE = 1\n",
        "mini/libc_only.so": c_lib,
        f"{dist}/METADATA": b"Metadata-Version: 2.1\nName: mini\nVersion: 1.0\nRequires-Python: >=3.9\n",
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: make_corpus.py\nRoot-Is-Purelib: false\n"
                         b"Tag: py3-none-manylinux_2_17_x86_64\n",
    }
    record = "".join(record_line(p, d) for p, d in files.items()) + f"{dist}/RECORD,,\n"
    files[f"{dist}/RECORD"] = record.encode()
    put("wheel_archive", wheel_bytes(files, zipfile.ZIP_DEFLATED))
    pure = {k: v for k, v in files.items() if not k.endswith(".so")}
    pure[f"{dist}/RECORD"] = ("".join(record_line(p, d) for p, d in pure.items() if not p.endswith("RECORD"))
                              + f'"{dist}/RECORD",,\n').encode()
    put("wheel_archive", wheel_bytes(pure, zipfile.ZIP_STORED))
    put("wheel_archive", pure[f"{dist}/RECORD"])  # RECORD text on its own reaches the parser too


def configs():
    for path in ("examples/minitensor/relforge.toml", "examples/pytorch/relforge.toml"):
        put("config", open(os.path.join(ROOT, path), "rb").read())
    folder = os.path.join(ROOT, "tests", "fixtures", "matrix")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".toml"):
            put("config", open(os.path.join(folder, name), "rb").read())


def payloads():
    folder = os.path.join(ROOT, "tests", "fixtures", "github-webhooks")
    chosen = ["workflow_job/queued.payload.json", "workflow_job/in_progress.payload.json",
              "workflow_job/completed.success.with-organization.payload.json", "push/payload.json",
              "pull_request/opened.payload.json", "check_run/completed.payload.json",
              "workflow_run/completed.payload.json", "repository_dispatch/payload.json"]
    for name in chosen:
        document = json.load(open(os.path.join(folder, name), encoding="utf-8"))
        put("intake_scan", json.dumps(document, separators=(",", ":"), ensure_ascii=False))
    # Shapes where a one-pass scan can disagree with the whole document: repeated and mistyped keys.
    for body in ['{"repository":{"full_name":"a/b"},"repository":{"full_name":"c/d"}}',
                 '{"repository":{"full_name":"a/b","full_name":7}}',
                 '{"repository":[{"full_name":"a/b"}],"workflow_job":{"id":1,"run_id":2.5,"name":null}}',
                 '{"workflow_job":{"conclusion":"success","conclusion":null},"workflow_job":{"id":18446744073709551615}}',
                 '[{"repository":{"full_name":"a/b"}}]', '{}']:
        put("intake_scan", body)


def request_paths():
    """Request targets, including every traversal shape the server must refuse (serve_test, e2e)."""
    for target in ["/", "/whl/", "/whl/nightly/cpu/mini/", "/whl/cpu/mini/mini-1.0+cpu-py3-none-any.whl",
                   "/whl/cpu/mini/?format=application/vnd.pypi.simple.v1+json", "//etc/passwd",
                   "/%2e%2e/secret.key", "/%2E%2e/%2e%2E/etc/passwd", "/%252e%252e/x", "/a%2fb", "/a%5cb",
                   "/a%00b", "/%c0%ae%c0%ae/x", "/./a", "/a/../b", "/.relforge.lock", "/a/.hidden",
                   "http://host/x", "*", "/caf%C3%A9/", "/a?b=%zz#frag"]:
        put("http_path", target)
    # Chunked bodies, well formed and in the shapes a smuggler sends (the same target reads them).
    for body in ["5\r\nhello\r\n0\r\n\r\n", "1;ext=\"v\"\r\nx\r\n0\r\nX-T: 1\r\n\r\n",
                 "38zz\r\n", "0x3\r\nabc\r\n0\r\n\r\n", "3\r\nabcjunk\r\n0\r\n\r\n", "3\nabc\r\n0\r\n\r\n"]:
        put("http_path", body)
    # Whole requests as a connection receives them: bodies framed by length and chunked, pipelined.
    post = "POST /webhook HTTP/1.1\r\nHost: relay\r\n"
    for request in [post + "Content-Length: 5\r\n\r\nhello",
                    post + "Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                    post + "Content-Length: 2\r\n\r\nokGET /! HTTP/1.1\r\nHost: relay\r\n\r\n"]:
        put("http_path", request)


def sidecars():
    """FILE.info.json records as publish writes them (indent 1), compact, and with the spellings the
    fast reader leaves to the general one (escapes, UTF-8, nesting, floats)."""
    info = {"filename": "mini-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl", "project": "mini",
            "version": "2.7.0+cu130", "sha256": "ab" * 32, "size": 104857600, "metadata_sha256": "cd" * 32,
            "requires_python": ">=3.10", "upload_time": "2026-01-02T03:04:05Z", "yanked": False,
            "yanked_reason": "", "provenance": True}
    put("sidecar", json.dumps(info, indent=1) + "\n")
    put("sidecar", json.dumps(info, separators=(",", ":")))
    put("sidecar", json.dumps(dict(info, yanked=True, yanked_reason="broken \"wheel\" \u00e9"), indent=1))
    put("sidecar", json.dumps(dict(info, yanked_reason="caf\u00e9"), ensure_ascii=False))
    put("sidecar", json.dumps(dict(info, extra={"nested": [1, 2.5, None]}, size=0)))
    put("sidecar", json.dumps(dict(info, size=-1)))
    put("sidecar", json.dumps({k: v for k, v in info.items() if k != "size"}))


def listings():
    """.relforge-listing caches as rebuild writes them, and saved upstream pages (PEP 691 JSON and
    PEP 503 HTML) as `index deps --upstream` reads them."""
    header = "relforge-listing 2\nvariant cpu"
    row = "\t".join(["mini-2.7.0%2Bcpu-py3-none-any.whl", "mini", "2.7.0+cpu", "ab" * 32, "1031",
                     "cd" * 32, ">=3.10", "2026-01-02T03:04:05Z", "0", "", "1"])
    put("listing_cache", f"{header}\n{row}\nend\n")
    put("listing_cache", f"{header}\n{row}\n{row.replace(chr(9) + '0' + chr(9), chr(9) + '1' + chr(9) + 'bad%20build')}\nend\n")
    put("listing_cache", f"{header}\nend\n")
    put("listing_cache", f"{header}\n{row}\nvariant cu126\nvariant rocm%09x\n{row}\nend\n")
    files = [{"filename": "numpy-2.3.0-cp312-cp312-manylinux_2_28_x86_64.whl", "url": "x", "hashes": {}},
             {"filename": "filelock-3.16.1-py3-none-any.whl"}, {"filename": 7}, "junk"]
    put("upstream_listing", json.dumps({"meta": {"api-version": "1.1"}, "name": "numpy", "files": files}))
    put("upstream_listing", "<!DOCTYPE html><html><body>\n<a href=\"numpy-2.3.0-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=00\">"
        "numpy-2.3.0-cp312-cp312-manylinux_2_28_x86_64.whl</a><br/>\n<A HREF=x>typing_extensions-4.12.2-py3-none-any.whl</A>\n"
        "<a>a&amp;b-1.0-py3-none-any.whl</a></body></html>\n")


def pyenv_files():
    """pyenv shims as `pyenv rehash` writes them (older and newer), scripts that are not shims, and
    version files with comments, several versions, CRLF, path-like names and an overlong line."""
    root = "/home/rm/.pyenv"
    put("pyenv_shim", "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
        f"export PYENV_ROOT=\"{root}\"\nexec \"{root}/libexec/pyenv\" exec \"$program\" \"$@\"\n")
    put("pyenv_shim", "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\nprogram=\"${0##*/}\"\n\n"
        f"export PYENV_ROOT=\"{root}\"\nSHIM_PATH=${{0%/*}}\nif [[ $SHIM_PATH != \"{root}/shims\" ]]; then\n"
        f"  export _PYENV_SHIM_PATH=\"$SHIM_PATH\"\nfi\nexec \"{root}/libexec/pyenv\" exec \"$program\" \"$@\"\n")
    put("pyenv_shim", f"#!/bin/sh\nexport PYENV_ROOT=\"{root}\"\nexec python3 \"$@\"\n")
    put("pyenv_shim", "3.11.7\n")
    put("pyenv_shim", "# pinned\n\n  3.12.1  extra words\r\n3.11.7\nsystem\n")
    put("pyenv_shim", "3.11.7/envs/venv\n..\n")
    put("pyenv_shim", "3" * 1100 + "\n")


def triage_logs():
    """CI logs as triage reads them: the triage fixtures (their first 8 KiB, the fuzzer's -max_len),
    and coloured copies with escapes inside words, cut short, and as OSC titles, with CRLF endings."""
    folder = os.path.join(ROOT, "tests", "fixtures", "triage")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()[:8192]
        put("triage_log", data)
        if name in ("compile_error.log", "gtest_failure.log", "pytest_failure.log", "context_xtrace.log"):
            coloured = re.sub(rb"([A-Za-z]{3})([A-Za-z]+)",
                              lambda m: b"\x1b[1;31m" + m[1] + b"\x1b[K" + m[2] + b"\x1b[0m", data)
            put("triage_log", coloured)
            put("triage_log", coloured.replace(b"\n", b"\x1b]0;title\x07\r\n"))
            put("triage_log", coloured.replace(b"[0m", b"[").replace(b"\n", b"\x1b\n"))


def junit_reports():
    """JUnit reports as triage ingest reads them: the fixtures, one declared Latin-1 with its bytes,
    one in UTF-8 with a stray byte, one declaring an encoding that is not read."""
    folder = os.path.join(ROOT, "tests", "fixtures", "triage")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".xml"):
            with open(os.path.join(folder, name), "rb") as f:
                put("junit", f.read()[:16384])
    case = b'<testsuites><testsuite name="p"><testcase classname="t.T" name="test_caf\xe9"><rerun/>' \
           b'<failure message="na\xefve &amp; &#233;"/></testcase></testsuite></testsuites>\n'
    put("junit", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n' + case)
    put("junit", b"<?xml version='1.0' encoding='utf-8'?>\n" + case)
    put("junit", b'<?xml version="1.0" encoding="UTF-16"?><testsuite name="p"/>')


def raw_deflates():
    """Raw deflate streams as zip entries hold them (the first byte picks the read step): stored,
    fixed and dynamic Huffman blocks, a stream cut short, one with bytes after its end, and a bomb."""
    import zlib

    def deflate(data, level, strategy=zlib.Z_DEFAULT_STRATEGY):
        packer = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
        return packer.compress(data) + packer.flush()
    text = open(os.path.join(ROOT, "tests", "fuzz", "make_corpus.py"), "rb").read()[:6000]
    put("raw_inflate", b"\x00" + deflate(text, 0))
    put("raw_inflate", b"\x07" + deflate(text, 1, zlib.Z_FIXED))
    put("raw_inflate", b"\x31" + deflate(text, 9))
    put("raw_inflate", b"\x02" + deflate(text, 6)[:-7])
    put("raw_inflate", b"\xff" + deflate(b"PK\x03\x04" * 50, 6) + b"hidden")
    put("raw_inflate", b"\x10" + deflate(bytes(4 << 20), 9))


def main():
    only = sys.argv[1:]
    if only:
        with tempfile.TemporaryDirectory() as work:
            for target in only:
                shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)
                {"pe": pes, "macho": machos, "sidecar": lambda _: sidecars(),
                 "listing_cache": lambda _: listings(), "upstream_listing": lambda _: listings(),
                 "pyenv_shim": lambda _: pyenv_files(), "triage_log": lambda _: triage_logs(),
                 "http_path": lambda _: request_paths(), "raw_inflate": lambda _: raw_deflates(),
                 "junit": lambda _: junit_reports()}[target](work)
        return
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    with tempfile.TemporaryDirectory() as work:
        pes(work)
        machos(work)
        c_lib, _ = elves(work)
        wheels(c_lib)
    versions()
    specifiers()
    wheel_names()
    configs()
    payloads()
    request_paths()
    sidecars()
    listings()
    pyenv_files()
    triage_logs()
    junit_reports()
    raw_deflates()
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(CORPUS) for f in fs)
    print(f"make_corpus: {total // 1024} KiB in {CORPUS}", file=sys.stderr)


if __name__ == "__main__":
    main()
