"""wadgym's ACS compiler: ACS source in, a BEHAVIOR lump that ViZDoom runs out (acc 1.58's bytes for acc's input).

    from wadgym.acs import compile_source, compile_file, AcsError
    behavior = compile_source('#include "zcommon.acs"\\nscript 1 OPEN { Print(s:"hi"); }')
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Mapping

from .errors import AcsError, Source

__all__ = ["AcsError", "compile_source", "compile_file"]


def compile_source(text: str | bytes, filename: str | os.PathLike = "<string>", include_dirs=(),
                   files: Mapping[str, str | bytes] | None = None, target: str = "vizdoom",
                   hexen: bool | str = False) -> bytes:
    """Compile ACS source text to a BEHAVIOR lump. ``#include`` and ``#import`` files are looked up as acc
    does: in ``files``, then beside the file that names them (for the text itself: beside ``filename``, the
    current folder for a bare name), then in ``include_dirs`` in order. ``files`` maps names to source texts
    that #include and #import find (in any case) before the disk: how a script imports a library that exists
    only in memory (``files={"mylib.acs": library_source}``).

    zcommon.acs, zdefs.acs, zspecial.acs and zwvars.acs are built in, in place of acc's own copies, which acc
    finds after every other folder: a file of that name in ``include_dirs`` (or, for an included file read
    from disk, beside it) is read instead, whole, as acc reads a mod's own headers. The text itself has no
    folder of its own for these four, and ``files`` never stand in for them, so a script compiled here gets
    the built-in headers whatever the current folder holds unless ``include_dirs`` has its own
    (compile_file, whose source is a file, looks beside that file first, as acc).

    A file that starts with ``#library "name"`` compiles to a library; ``#import "lib.acs"`` reads a library's
    declarations, as acc does. Raises AcsError (and nothing else) for any problem in the input.

    ``target`` is the engine the lump is for: ``"vizdoom"`` (ViZDoom 1.3; refuses what that engine cannot run:
    functions, specials and script types it lacks) or ``"zdoom"`` (everything acc 1.58 compiles with its stock
    headers, with acc's bytes: for mods that target GZDoom or Zandronum). ValueError for any other.

    ``hexen=True`` is acc's ``-h``: Hexen-compatible p-code (never compact, switches as CASEGOTO chains, the
    old lump layout); a program that needs a newer feature (functions, arrays, named scripts, libraries...)
    is an error. ``hexen="warn"`` is acc's ``-hh``: the same code, upgraded to the new layout when needed.
    """
    from .preprocessor import decode_source

    name = "<string>" if filename is None else os.fspath(filename)
    files = _files(files)
    _options(target, hexen)
    return _guarded(name, lambda: _compile(Source(name, decode_source(text)), _folders(include_dirs), files,
                                           target, hexen))


def compile_file(path: str | os.PathLike, include_dirs=(), files: Mapping[str, str | bytes] | None = None,
                 target: str = "vizdoom", hexen: bool | str = False) -> bytes:
    """Compile the ACS file at ``path`` (see compile_source). Its folder is searched first for every include,
    zcommon.acs, zdefs.acs, zspecial.acs and zwvars.acs too (the built-in copies come after ``include_dirs``)."""
    from .preprocessor import read_source

    name = os.fspath(path)
    files = _files(files)
    _options(target, hexen)
    return _guarded(name, lambda: _compile(read_source(name), _folders(include_dirs), files, target, hexen,
                                           from_file=True))


def _options(target, hexen) -> None:
    from .builtins import for_target

    for_target(target)  # ValueError naming the valid targets
    if hexen not in (False, True, "warn"):
        raise ValueError(f"hexen must be False, True (acc's -h) or 'warn' (acc's -hh), not {hexen!r}")


def _folders(include_dirs) -> list:
    """``include_dirs`` as a list: one folder (a str or path) or an iterable of them."""
    if not include_dirs:
        return []
    if isinstance(include_dirs, (str, bytes, os.PathLike)):
        return [os.fsdecode(include_dirs)]
    return [os.fsdecode(folder) for folder in include_dirs]


def _files(files) -> dict:
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise TypeError(f"files must be a mapping of file names to source texts, not {type(files).__name__}")
    for name, text in files.items():
        if not isinstance(name, str) or not isinstance(text, (str, bytes)):
            raise TypeError(f"files: {name!r} must map a file name (str) to its source (str or bytes)")
    return dict(files)


def _compile(source: Source, include_dirs, files, target: str = "vizdoom", hexen: bool | str = False,
             from_file: bool = False) -> bytes:
    """The pipeline, each stage a function of the one before: tokens, tree, findings, module, bytes.
    ``from_file``: ``source`` was read from a file, whose folder is searched first (preprocess)."""
    from .checks import check
    from .codegen import generate
    from .objfile import hexen_incompatibilities, write_object
    from .parser import parse
    from .preprocessor import preprocess

    program = parse(preprocess(source, include_dirs, files, from_file))
    module = generate(program, check(program, target, bool(hexen)))
    if hexen is True:
        newer = hexen_incompatibilities(module)
        if newer:
            raise AcsError(f"not compatible with Hexen's p-code (-h): the scripts use {', '.join(newer)} "
                           "(-hh upgrades them to ZDoom's format with a warning instead)", file=source.name)
    return write_object(module)


def _guarded(file: str, compile_step) -> bytes:
    """Run a compile so that any failure surfaces as AcsError (naming ``file`` when it has no position)."""
    old_limit = sys.getrecursionlimit()
    if old_limit < 10000:
        sys.setrecursionlimit(10000)
    # The tree holds no reference cycles, so the cycle collector would only walk it again and again as it
    # grows (a third of the time of a large file); it is off while compiling.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return compile_step()
    except AcsError:
        raise
    except RecursionError:
        raise AcsError("program nested too deeply to compile", file=file) from None
    except MemoryError:
        raise AcsError("program too large to compile (out of memory)", file=file) from None
    except Exception as exc:  # a compiler bug must still reach the caller as a compile error
        raise AcsError(f"internal compiler error ({type(exc).__name__}: {exc}); please report it",
                       file=file) from exc
    finally:
        sys.setrecursionlimit(old_limit)
        if collecting:
            gc.enable()
