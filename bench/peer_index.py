#!/usr/bin/python3
"""The straightforward Python reference for `relforge index rebuild`: walks the same store, reads
every FILE.info.json, and renders the same pages (PEP 503 HTML + PEP 691 JSON, per variant and
combined per channel) into OUT_DIR, the way a simple generator script would.

usage: peer_index.py ROOT OUT_DIR
Prints "<pages> <files>".
"""
import html
import json
import os
import sys
import urllib.parse

from packaging.version import Version

API = "1.3"
HEAD = '<!DOCTYPE html>\n<html>\n<head>\n<meta name="pypi:repository-version" content="' + API + '">\n'


def render_html(project, files):
    out = [HEAD, f"<title>Links for {html.escape(project)}</title>\n</head>\n<body>\n",
           f"<h1>Links for {html.escape(project)}</h1>\n"]
    for url, info in files:
        a = f'<a href="{html.escape(url)}#sha256={info["sha256"]}"'
        if info["requires_python"]:
            a += f' data-requires-python="{html.escape(info["requires_python"])}"'
        if info["metadata_sha256"]:
            a += (f' data-dist-info-metadata="sha256={info["metadata_sha256"]}"'
                  f' data-core-metadata="sha256={info["metadata_sha256"]}"')
        if info["provenance"]:
            a += f' data-provenance="{html.escape(url)}.provenance"'
        if info["yanked"]:
            a += f' data-yanked="{html.escape(info["yanked_reason"])}"'
        out.append(a + f'>{html.escape(info["filename"])}</a><br/>\n')
    out.append("</body>\n</html>\n")
    return "".join(out)


def render_json(project, files):
    entries = []
    for url, info in files:
        entries.append({
            "filename": info["filename"], "url": url, "hashes": {"sha256": info["sha256"]},
            "requires-python": info["requires_python"] or None,
            "core-metadata": {"sha256": info["metadata_sha256"]} if info["metadata_sha256"] else False,
            "yanked": (info["yanked_reason"] or True) if info["yanked"] else False,
            "size": info["size"], "upload-time": info["upload_time"] or None,
            "provenance": url + ".provenance" if info["provenance"] else None})
    versions = sorted({Version(info["version"]) for _, info in files})
    page = {"meta": {"api-version": API}, "name": project, "versions": [str(v) for v in versions],
            "files": entries}
    return json.dumps(page, separators=(",", ":")) + "\n"


def root_pages(projects):
    body = "".join(f'<a href="{html.escape(urllib.parse.quote(p))}/">{html.escape(p)}</a><br/>\n'
                   for p in projects)
    page = HEAD + "<title>Simple index</title>\n</head>\n<body>\n" + body + "</body>\n</html>\n"
    data = {"meta": {"api-version": API}, "projects": [{"name": p} for p in projects]}
    return page, json.dumps(data, separators=(",", ":")) + "\n"


def write(folder, page, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "index.html"), "w") as handle:
        handle.write(page)
    with open(os.path.join(folder, "index.json"), "w") as handle:
        handle.write(data)


def main() -> None:
    root, out = sys.argv[1], sys.argv[2]
    pages = files_seen = 0
    for folder in ("whl", "whl/test", "whl/nightly"):
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        variants = sorted(v for v in os.listdir(base)
                          if os.path.exists(os.path.join(base, v, ".relforge-variant")))
        combined = {}
        for variant in variants:
            projects = sorted(p for p in os.listdir(os.path.join(base, variant))
                              if os.path.isdir(os.path.join(base, variant, p)))
            for project in projects:
                project_dir = os.path.join(base, variant, project)
                files = []
                for name in os.listdir(project_dir):
                    if not name.endswith(".whl.info.json") or not os.path.exists(
                            os.path.join(project_dir, name[:-len(".info.json")])):
                        continue
                    with open(os.path.join(project_dir, name)) as handle:
                        info = json.load(handle)
                    files.append((urllib.parse.quote(info["filename"]), info))
                files.sort(key=lambda f: (Version(f[1]["version"]), f[1]["filename"]))
                files_seen += len(files)
                write(os.path.join(out, folder, variant, project), render_html(project, files),
                      render_json(project, files))
                pages += 1
                combined.setdefault(project, []).extend(
                    (f"../{variant}/{project}/{url}", info) for url, info in files)
            write(os.path.join(out, folder, variant), *root_pages(projects))
            pages += 1
        for project, files in sorted(combined.items()):
            files.sort(key=lambda f: (Version(f[1]["version"]), f[1]["filename"]))
            write(os.path.join(out, folder, project), render_html(project, files), render_json(project, files))
            pages += 1
        write(os.path.join(out, folder), *root_pages(sorted(combined)))
        pages += 1
    print(pages, files_seen)


if __name__ == "__main__":
    main()
