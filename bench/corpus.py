"""Build the speed corpus (issue 19): real Markdown and plain-text files from public repositories at pinned commits.

The files are written to a folder outside the project (default /work/field-speed/corpus, or
$CHUNKCTL_SPEED_CORPUS) as md/ and txt/ and are never committed. Each source is read from a
local git mirror when one exists (`--mirrors DIR`, laid out as DIR/<owner>+<name>/repo) or else
cloned once from GitHub (blobs fetched on demand). Files of a source are taken in path order up
to its byte budget, so the same commit always gives the same corpus.

    python bench/corpus.py                 # build (or check) the corpus, print what it holds
    python bench/corpus.py --dest /tmp/sc  # somewhere else

Sources and licences (all allow copying for measurement; nothing here is redistributed):

| source | commit | files | licence |
| --- | --- | --- | --- |
| fastapi/fastapi docs/en/docs/**.md | c3f316b7 | Markdown | MIT |
| rust-lang/book src/**.md | 91754488 | Markdown | MIT or Apache-2.0 |
| reactjs/react.dev src/content/**.md | 12d692da | Markdown | CC-BY-4.0 |
| kubernetes/enhancements keps/**/README.md | 64765b4b | Markdown | Apache-2.0 |
| python/peps peps/pep-*.rst (as .txt) | ba4deeb7 | plain text (reStructuredText) | public domain / CC0-1.0 |
| RU-ECE/ECE451-Parallel data/books (Project Gutenberg) | c58dca3a | plain text | public domain in the US |
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DEST = Path(os.environ.get("CHUNKCTL_SPEED_CORPUS", "/work/field-speed/corpus"))
DEFAULT_MIRRORS = Path("/work/.mirror")


@dataclass(frozen=True)
class Source:
    """One repository's share of the corpus: files under `prefix` ending in `suffix`, in path order,
    until `budget` bytes; written as `fmt` (md or txt) under a folder named `tag`."""

    repo: str
    commit: str
    prefix: str
    suffix: str
    fmt: str
    tag: str
    budget: int
    licence: str
    only: tuple[str, ...] = ()  # exact paths instead of a prefix walk (Gutenberg novels)


SOURCES = [
    Source("fastapi/fastapi", "c3f316b7e814667e8ee81e03a7330d00ee61e45c", "docs/en/docs/", ".md", "md",
           "fastapi", 2_000_000, "MIT"),
    Source("rust-lang/book", "917544888a55e4da7109bdba8c88c893c0da70f4", "src/", ".md", "md",
           "rust-book", 2_000_000, "MIT OR Apache-2.0"),
    Source("reactjs/react.dev", "12d692da47e77cdc558b928fcfbaf4e71c6d0cec", "src/content/", ".md", "md",
           "react", 4_000_000, "CC-BY-4.0"),
    Source("kubernetes/enhancements", "64765b4b02389318f2113119dd9e491479f978a0", "keps/", "/README.md", "md",
           "keps", 3_000_000, "Apache-2.0"),
    Source("python/peps", "ba4deeb7969588d937da609008d05bb83a47b1ab", "peps/pep-", ".rst", "txt",
           "peps", 5_000_000, "public domain / CC0-1.0"),
    Source("RU-ECE/ECE451-Parallel", "c58dca3a6abedd8041057571c247e9a393cc3b4d", "data/books/", ".txt", "txt",
           "gutenberg", 10_000_000, "public domain (Project Gutenberg)",
           only=("data/books/2701-0.txt", "data/books/98-0.txt", "data/books/Pride_and_Prejudice_JaneAusten.txt",
                 "data/books/74-0.txt", "data/books/11-0.txt")),
]


def git(repo_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo_dir), *args], check=True, capture_output=True).stdout


def repo_dir(src: Source, mirrors: Path, cache: Path) -> Path:
    """A git directory holding `src.commit`: the local mirror, or a partial clone made once under `cache`."""
    mirror = mirrors / src.repo.replace("/", "+") / "repo"
    if mirror.exists():
        return mirror
    clone = cache / src.repo.replace("/", "+")
    if not clone.exists():
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{src.repo}", str(clone)],
                       check=True)
    return clone


def pick(src: Source, gdir: Path) -> list[tuple[str, int]]:
    """(path, bytes) of the files this source contributes, in path order, within its budget."""
    listing = git(gdir, "ls-tree", "-r", "-l", src.commit, "--", src.prefix.rsplit("/", 1)[0] or ".").decode()
    files = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        size = meta.split()[3]
        if src.only:
            if path in src.only:
                files.append((path, int(size)))
        elif path.startswith(src.prefix) and path.endswith(src.suffix) and size.isdigit():
            files.append((path, int(size)))
    files.sort()
    out, total = [], 0
    for path, size in files:
        if total + size > src.budget:
            continue
        out.append((path, size))
        total += size
    return out


def build(dest: Path, mirrors: Path = DEFAULT_MIRRORS, verbose: bool = True) -> Path:
    """Write the corpus to dest/md and dest/txt (skipping files already there); returns `dest`."""
    cache = dest.parent / ".speed-corpus-git"
    for src in SOURCES:
        gdir = repo_dir(src, mirrors, cache)
        files = pick(src, gdir)
        folder = dest / src.fmt / src.tag
        folder.mkdir(parents=True, exist_ok=True)
        for path, _ in files:
            name = path[len(src.prefix.rsplit("/", 1)[0]) + 1:].replace("/", "__")
            if src.fmt == "txt" and not name.endswith(".txt"):
                name = name.rsplit(".", 1)[0] + ".txt"
            target = folder / name
            if not target.exists():
                target.write_bytes(git(gdir, "show", f"{src.commit}:{path}"))
        if verbose:
            mb = sum(s for _, s in files) / 1e6
            print(f"{src.repo}@{src.commit[:8]}: {len(files)} files, {mb:.1f} MB -> {folder} ({src.licence})",
                  file=sys.stderr)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    args = ap.parse_args()
    build(args.dest, args.mirrors)


if __name__ == "__main__":
    main()
