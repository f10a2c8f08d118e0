"""Build the real trec_eval binaries from the source archives in ``tests/data/trec_eval_src``.

``build(release)`` extracts one archive into ``benchmarks/.trec_eval_builds/<release>-<flags>``
and runs its own Makefile there (needs ``make`` and a C compiler); the result is cached.
``flags`` replaces the ``-g`` of the Makefile's ``CFLAGS = -g ...`` line (the rest, with its
``-DVERSIONID``, is kept), so ``"-O2"`` gives an optimised build and ``None`` the Makefile's
own flags.

Each profile of ``rankeval trec`` reproduces one of these builds:

==============  ============================  ==============================
profile         archive                       ``trec_eval -v`` prints
==============  ============================  ==============================
``9.0.8-2020``  ``v9.0.8.tar.gz`` (git tag)   ``trec_eval version 9.0.7``
``9.0.8``       ``trec_eval-9.0.8.tar.gz``    ``trec_eval version 9.0.8``
``10.0``        ``v10.0.tar.gz`` (git tag)    ``trec_eval version 10.0-rc3``
==============  ============================  ==============================
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SOURCES = REPO_ROOT / "tests" / "data" / "trec_eval_src"
CACHE = Path(__file__).resolve().parent / ".trec_eval_builds"

#: profile -> source archive
ARCHIVES = {
    "9.0.8-2020": "v9.0.8.tar.gz",
    "9.0.8": "trec_eval-9.0.8.tar.gz",
    "10.0": "v10.0.tar.gz",
}


def compiler_present() -> bool:
    return shutil.which("make") is not None and (
        shutil.which(os.environ.get("CC", "cc")) is not None or shutil.which("gcc") is not None)


def build(profile: str, flags: str | None = "-O2", cache: Path = CACHE) -> Path:
    """The path of the ``trec_eval`` binary for ``profile``, built under ``cache`` if not
    there yet."""
    label = "makefile" if flags is None else flags.replace(" ", "_").replace("-", "")
    where = cache / f"{profile}-{label}"
    binary = where / "trec_eval"
    if binary.exists():
        return binary
    if not compiler_present():
        raise RuntimeError("building trec_eval needs make and a C compiler (cc or gcc)")
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    with tarfile.open(SOURCES / ARCHIVES[profile]) as archive:
        archive.extractall(where, filter="data")
    makefile = where / "Makefile"
    if flags is not None:
        text, count = re.subn(r"^(CFLAGS\s*=\s*)-g\b", lambda m: m.group(1) + flags,
                              makefile.read_text(), count=1, flags=re.MULTILINE)
        if count != 1:
            raise RuntimeError(f"{makefile}: no 'CFLAGS = -g' line to replace")
        makefile.write_text(text)
    subprocess.run(["make", "-s", "-C", str(where), "trec_eval"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return binary


if __name__ == "__main__":
    for name in ARCHIVES:
        path = build(name)
        version = subprocess.run([str(path), "-v"], capture_output=True, text=True)
        print(f"{name:12} {path}  {(version.stdout + version.stderr).strip()}")
