"""Files every wadgym package reads and writes, in one place acs, wads, envs and agents all import (it
imports nothing of wadgym's): the one atomic writer, so that no reader ever sees half of a file, and the
one reader of a WAD's lump directory."""

from __future__ import annotations

import contextlib
import os
import secrets
import struct
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (see write_all_atomic)."""
    write_all_atomic([(path, data)])


def write_all_atomic(files: Iterable[tuple[str | os.PathLike, bytes]]) -> None:
    """Write each (path, data) atomically, all or none: every file first to a temporary one beside it
    (`.<name>.<random>.tmp`, so that a killed writer's leftover names its target), then the renames.
    When writing any of them fails, nothing is renamed and the temporary files are removed."""
    staged: list[tuple[str, str]] = []
    try:
        for path, data in files:
            path = os.fspath(path)
            folder = os.path.dirname(os.path.abspath(path))
            fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
            staged.append((temporary, path))
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), 0o666 & ~_umask())
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for temporary, path in staged:
            os.replace(temporary, path)
    except BaseException as error:
        for temporary, _ in staged:
            if os.path.exists(temporary):
                os.unlink(temporary)
        named = naming(error, staged[-1][1], staged[-1][0]) if isinstance(error, OSError) and staged else error
        if named is error:
            raise
        raise named from error


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary name in `path`'s folder (same suffix) for a writer that takes a path: renamed over
    `path` when the block succeeds, removed when it raises. The folder is created.

    The name is unique but not created first (as mkstemp would, mode 0600), so the file gets the
    usual permissions."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{secrets.token_hex(6)}.tmp{path.suffix}")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        named = naming(error, path, temporary) if isinstance(error, OSError) else error
        if named is error:
            raise
        raise named from error


def naming(error: OSError, path: str | os.PathLike, temporary: str | os.PathLike) -> OSError:
    """`error` from writing `path` (through `temporary`), as an OSError that names `path` (a write to a
    full disk says only "[Errno 28] No space left on device"); `error` itself when it names another file."""
    if error.errno is None or error.filename not in (None, os.fspath(temporary), str(temporary)):
        return error
    return type(error)(error.errno, error.strerror or str(error), os.fspath(path))


def wad_directory(data: bytes) -> list[tuple[str, int, int]]:
    """(upper-case name, offset, size) of every lump of the IWAD or PWAD held in `data`. A file that is
    not a WAD, or whose directory or lumps lie beyond its end, is a ValueError saying which."""
    if len(data) < 12 or data[:4] not in (b"IWAD", b"PWAD"):
        raise ValueError(f"not a WAD: it starts with {bytes(data[:4])!r}, expected 'IWAD' or 'PWAD'")
    count, table = struct.unpack_from("<II", data, 4)
    if table + 16 * count > len(data):
        raise ValueError(f"WAD directory of {count} entries at {table} runs past the end ({len(data)} bytes)")
    entries = []
    for i in range(count):
        offset, size, raw = struct.unpack_from("<II8s", data, table + 16 * i)
        name = raw.split(b"\0", 1)[0].decode("latin-1").upper()
        if offset + size > len(data):
            raise ValueError(f"lump {i} ({name}) at {offset}, {size} bytes, runs past the end ({len(data)} bytes)")
        entries.append((name, offset, size))
    return entries


def read_wad(wad: bytes | str | os.PathLike) -> list[tuple[str, bytes]]:
    """(upper-case name, data) of every lump of a WAD given as bytes or a path, in directory order."""
    if not isinstance(wad, (bytes, bytearray)):
        wad = Path(wad).read_bytes()
    data = bytes(wad)
    return [(name, data[offset:offset + size]) for name, offset, size in wad_directory(data)]
