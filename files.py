"""Writing files so that no reader ever sees half of one: the one atomic writer every wadgym package uses
(acs, wads, envs and agents all import it; it imports nothing of wadgym's)."""

from __future__ import annotations

import contextlib
import os
import secrets
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
    except BaseException:
        for temporary, _ in staged:
            if os.path.exists(temporary):
                os.unlink(temporary)
        raise


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
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
