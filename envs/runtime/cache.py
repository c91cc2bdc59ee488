"""WAD cache: a scenario's WAD is built once per (scenario, parameters, seed, wadgym code) and kept under its hash.

The folder is, first found: the `cache_dir` argument, $WADGYM_CACHE_DIR, the platform's user cache
folder for wadgym (platformdirs: $XDG_CACHE_HOME/wadgym, else ~/.cache/wadgym on Linux). Beside each
`<stem>-<key>.wad` a `.json` record holds its size and SHA-256 from when it was written; a WAD is used
only when it matches, and rebuilt otherwise (truncated, damaged, replaced, a folder in its place).
Builds of one WAD are serialised across processes by a lock file
(`.<name>.lock`): parallel workers build it once, and since files are written under a temporary
name and renamed, never read half of one. A killed writer's temporary file is removed by the next
build of that WAD (any other `*.tmp` here once it is an hour old).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import platformdirs

ENV_VAR = "WADGYM_CACHE_DIR"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent
# The code a built WAD depends on: a change to any of it gives new cache keys.
CODE_GLOBS = ("acs/*.py", "acs/*.acs", "wads/*.py", "envs/scenarios/*.py", "envs/scenarios/*.acs",
              "envs/families/*.acs")


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    if override is not None:
        return Path(override).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    return Path(platformdirs.user_cache_dir("wadgym", appauthor=False))


@functools.cache
def code_fingerprint() -> str:
    """Hash of the sources that turn parameters into WAD bytes (computed once per process)."""
    digest = hashlib.sha256()
    for pattern in CODE_GLOBS:
        for path in sorted(PACKAGE_ROOT.glob(pattern)):
            if path.is_file():
                digest.update(str(path.relative_to(PACKAGE_ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def wad_key(description: dict) -> str:
    """Hash of what a WAD is built from (a JSON-able description) and of the code that builds it."""
    text = json.dumps({**description, "code": code_fingerprint()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_wad(stem: str, description: dict, build: Callable[[], bytes],
               directory: str | os.PathLike | None = None) -> Path:
    """Path of `<cache>/<stem>-<key>.wad` for `description` (see wad_key), whose bytes match the record
    written with them; `build()` gives the bytes when there is no such file (first use, or damaged)."""
    from filelock import FileLock

    folder = cache_dir(directory)
    path = folder / f"{stem}-{wad_key(description)}.wad"
    if verified(path):
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / f".{path.name}.lock"):
        if verified(path):  # another process built it while we waited
            return path
        _remove_leftovers(path)
        _store(path, build())
    return path


def record_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")


def verified(path: Path) -> bool:
    """`path` is a file whose size and SHA-256 are those recorded when it was written."""
    try:
        record = json.loads(record_path(path).read_text())
        if not path.is_file() or path.stat().st_size != record["size"]:
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == record["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _store(path: Path, data: bytes) -> None:
    """The WAD, then its record, each written atomically: a record never vouches for other bytes."""
    from wadgym.files import write_atomic

    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"the WAD build for {path.name} returned {type(data).__name__}, not bytes")
    record_path(path).unlink(missing_ok=True)
    write_atomic(path, data)
    write_atomic(record_path(path), json.dumps({"size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
                 .encode())


STALE_SECONDS = 3600


def _remove_leftovers(path: Path) -> None:
    """Under the WAD's lock: whatever stands at its path (a damaged file, a folder), the temporary
    files of writers killed while writing it, and any temporary file here an hour old."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    now = time.time()
    for leftover in path.parent.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            mine = leftover.name.startswith((f".{path.name}.", f".{record_path(path).name}."))
            if mine or now - leftover.stat().st_mtime > STALE_SECONDS:
                leftover.unlink()
