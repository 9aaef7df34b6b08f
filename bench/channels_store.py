#!/usr/bin/python3
"""Writes a synthetic channel store for the channel benches: FILES wheel files over 20 variants and
3 channels (40 projects: 2,400 per-variant project pages), laid out as `relforge publish` lays it
out. `relforge index rebuild` reads only the FILE.info.json sidecars and checks that the wheel
exists, so each wheel is an empty placeholder.

usage: channels_store.py ROOT [FILES [PROJECTS]]   (default 100000 files, 40 projects)
"""
import json
import os
import sys

CHANNELS = {"stable": "whl", "test": "whl/test", "nightly": "whl/nightly"}
VARIANTS = ["cpu", "cpu-cxx11-abi", "cu118", "cu121", "cu124", "cu126", "cu128", "cu129", "cu130",
            "rocm6.2", "rocm6.3", "rocm6.4", "rocm7.0", "rocm7.1", "rocm7.2", "xpu", "cpu-aarch64",
            "cu126-aarch64", "cu130-aarch64", "rocm7.2-navi"]
PYTHONS = ["cp310", "cp311", "cp312", "cp313", "cp313t", "cp314"]


def main() -> None:
    root = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    projects = [f"pkg{i:02d}" for i in range(int(sys.argv[3]) if len(sys.argv) > 3 else 40)]
    pages = len(CHANNELS) * len(VARIANTS) * len(projects)
    base, extra = divmod(total, pages)
    page = 0
    for channel, folder in CHANNELS.items():
        for variant in VARIANTS:
            variant_dir = os.path.join(root, folder, variant)
            os.makedirs(variant_dir, exist_ok=True)
            open(os.path.join(variant_dir, ".relforge-variant"), "w").close()
            for project in projects:
                project_dir = os.path.join(variant_dir, project)
                os.makedirs(project_dir, exist_ok=True)
                count = base + (1 if page < extra else 0)
                page += 1
                for n in range(count):
                    python = PYTHONS[n % len(PYTHONS)]
                    day = n // len(PYTHONS)
                    public = f"2.8.0.dev202601{day + 1:02d}" if channel == "nightly" else f"2.{day}.0"
                    version = f"{public}+{variant.replace('-', '.')}"
                    abi = python
                    name = f"{project}-{version}-{python.rstrip('t')}-{abi}-manylinux_2_28_x86_64.whl"
                    digest = f"{(page * 1000003 + n) % (1 << 64):016x}" * 4
                    info = {"filename": name, "project": project, "version": version, "sha256": digest,
                            "size": 104857600 + n, "metadata_sha256": digest[::-1],
                            "requires_python": ">=3.10", "upload_time": "2026-01-02T03:04:05Z",
                            "yanked": False, "yanked_reason": "", "provenance": n % 2 == 0}
                    path = os.path.join(project_dir, name)
                    open(path, "wb").close()
                    with open(path + ".info.json", "w") as handle:
                        handle.write(json.dumps(info, indent=1) + "\n")


if __name__ == "__main__":
    main()
