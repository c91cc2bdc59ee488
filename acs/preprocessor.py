"""Turns a source file into one token stream: splices #include files, marks the built-in headers, and reads each
#import'ed library into an ``import`` token of its own."""

from __future__ import annotations

import os
from typing import NamedTuple

from .errors import AcsError, Source
from .lexer import Tokens, tokenize

# Headers acc ships beside itself; wadgym provides their definitions from its own tables. acc looks for them
# as for any include and reaches its own copies last, so a file of the same name in a folder searched before
# them (a mod's own zspecial.acs, say) is read instead; wadgym's tables stand in for acc's copies only.
BUILTIN_HEADERS = ("zcommon.acs", "zspecial.acs", "zdefs.acs", "zwvars.acs")
MAX_INCLUDE_DEPTH = 64


class Imported(NamedTuple):
    """The payload of an ``import`` token: the library file and its tokens as an importer reads them (acc
    skips a library's own #include and #import lines when importing it, so they are gone)."""

    path: str
    tokens: Tokens


def decode_source(data: bytes | str) -> str:
    """Source text from bytes or str; undecodable bytes survive (as surrogates) into string literals."""
    if isinstance(data, bytes):
        text = data.decode("utf-8", "surrogateescape")
    elif isinstance(data, str):
        text = data
    else:
        raise AcsError(f"source must be str or bytes, not {type(data).__name__}")
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path: str, *, included_from: tuple[Tokens, int] | None = None) -> Source:
    """The file at ``path``; an error points at ``included_from`` (tokens, index of the file's name) if given."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        message = f"cannot read {path!r}: {exc.strerror or exc}"
        if included_from is not None:
            raise included_from[0].error(included_from[1], message) from None
        raise AcsError(message, file=path) from None
    return Source(path, decode_source(data))


def preprocess(source: Source, include_dirs=(), files=None, from_file: bool = False) -> Tokens:
    """Tokens of ``source`` with every ``#include`` replaced by the included file's tokens.

    A file is looked for as acc looks: in the folder of the file that includes it, then in ``include_dirs`` in
    order (``#include`` and ``#import`` alike). ``files`` ({name: source text}) are found by name (in any case)
    before the disk is searched. ``#import "lib.acs"`` becomes one ``import`` token whose value is an Imported;
    ``#library`` stays for the parser.

    ``#include "zcommon.acs"`` (and zspecial/zdefs/zwvars) reads a file of that name found in those folders,
    as acc does before it reaches its own copies; when there is none it becomes one ``builtin`` token whose
    value is the header's name, and no file is read. ``files`` never stand in for these four, and neither does
    the folder of a text that was not read from a file: ``from_file`` says whether ``source`` was (so that
    text compiled in memory finds them only in ``include_dirs``, whatever the current folder holds).
    """
    expander = _Expander([os.fsdecode(d) for d in include_dirs], files)
    if source.name.lower() in expander.files:
        root = source.name.lower()
    else:
        root = os.path.realpath(source.name) if os.path.isfile(source.name) else None
    expander.expand(source, [root] if root else [], outermost=True, on_disk=from_file)
    return expander.finish()


def library_tokens(source: Source) -> Tokens:
    """The tokens of a library being imported: its #include and #import lines dropped, as acc skips them."""
    tokens = tokenize(source)
    kinds = tokens.kinds
    keep = []
    i = 0
    count = len(kinds) - 1
    depth = 0
    start = 0
    for at in _directive_positions(kinds):
        depth += _depth_change(kinds, start, at)
        start = at
        if depth == 0 and at + 1 < count and kinds[at + 1] in ("include", "import"):
            keep.append((i, at))
            i = min(at + 3, count)
    keep.append((i, len(kinds)))
    if len(keep) == 1:
        return tokens
    out = Tokens([], [], [], [])
    for first, end in keep:
        _copy(out, tokens, first, end, tokens.segments[0][1])
    return out


class _Expander:
    def __init__(self, include_dirs: list[str], files=None):
        self.include_dirs = include_dirs
        self.files = {name.lower(): (name, text) for name, text in (files or {}).items()}
        self.out = Tokens([], [], [], [])
        self.depth = 0  # brace depth, to keep directives out of scripts and functions
        self.last: tuple[Tokens, Source] | None = None

    def finish(self) -> Tokens:
        tokens, source = self.last
        _copy(self.out, tokens, len(tokens) - 1, len(tokens), source)  # the main file's eof
        return self.out

    def expand(self, source: Source, stack: list[str], outermost: bool = False, on_disk: bool = True) -> None:
        """Copy the tokens of ``source`` (a file read from disk if ``on_disk``) to the output, splicing in its
        includes; ``stack``: the keys of the files including it, for cycles."""
        tokens = tokenize(source)
        kinds = tokens.kinds
        count = len(kinds) - 1  # the last token is eof
        copied = 0
        scanned = 0
        for at in _directive_positions(kinds):
            self.depth += _depth_change(kinds, scanned, at)
            scanned = at
            if at + 1 >= count or kinds[at + 1] not in ("include", "import"):
                continue
            if self.depth > 0:
                raise tokens.error(at, f"#{kinds[at + 1]} must stand outside scripts and functions")
            _copy(self.out, tokens, copied, at, source)
            copied = min(at + 3, count)
            if kinds[at + 2] != "string":
                raise tokens.error(at + 2, f"#{kinds[at + 1]} needs a file name in double quotes")
            if kinds[at + 1] == "include":
                self.include(tokens, at + 2, source, stack, on_disk)
            else:
                self.library(tokens, at + 2, source, stack, on_disk)
        if not outermost:  # an included file: the brace depth it leaves matters to its includer's directives
            self.depth += _depth_change(kinds, scanned, count)
        _copy(self.out, tokens, copied, count, source)
        self.last = (tokens, source)

    def include(self, tokens: Tokens, at: int, source: Source, stack: list[str], on_disk: bool) -> None:
        name = tokens.values[at]
        found = self.find(tokens, at, source, "include file", on_disk, builtin=name.lower() in BUILTIN_HEADERS)
        if found is None:  # a built-in header no folder shadows: acc's own copy, wadgym's tables
            self.token(tokens, at, source, "builtin", name.lower())
            return
        path, key = found
        if key in stack:
            chain = " -> ".join(os.path.basename(p) for p in stack + [key])
            raise tokens.error(at, f"include cycle: {chain}")
        if len(stack) >= MAX_INCLUDE_DEPTH:
            raise tokens.error(at, f"includes nested more than {MAX_INCLUDE_DEPTH} deep")
        self.expand(self.read(path, key, tokens, at), stack + [key], on_disk=key not in self.files)

    def library(self, tokens: Tokens, at: int, source: Source, stack: list[str], on_disk: bool) -> None:
        path, key = self.find(tokens, at, source, "library", on_disk)
        if key in stack:
            raise tokens.error(at, f"{os.path.basename(path)} is the file being compiled (or #included by it): "
                                   "it cannot import itself")
        imported = library_tokens(self.read(path, key, tokens, at))
        self.token(tokens, at, source, "import", Imported(path, imported))

    def read(self, path: str, key: str, tokens: Tokens, at: int) -> Source:
        if key in self.files:
            name, text = self.files[key]
            return Source(name, decode_source(text))
        return read_source(path, included_from=(tokens, at))

    def token(self, tokens: Tokens, at: int, source: Source, kind: str, value) -> None:
        """One token of ``kind`` standing at token ``at`` of ``tokens`` (where messages about it point)."""
        out = self.out
        _add_segment(out, source, at)
        out.kinds.append(kind)
        out.values.append(value)
        out.texts.append(tokens.texts[at])

    def find(self, tokens: Tokens, at: int, source: Source, what: str, on_disk: bool,
             builtin: bool = False) -> tuple[str, str] | None:
        """(path, key) of the file a directive names (key: the real path, or the name of one of ``files``), in
        acc's order: one of ``files``, else the folder of ``source`` (the file holding the directive), then the
        -i folders in order. For a ``builtin`` header name: only those folders, and only the folder of a
        ``source`` read from disk; None when none has it (the built-in copy is what acc would read)."""
        name = tokens.values[at]
        if not builtin and name.lower() in self.files:
            return self.files[name.lower()][0], name.lower()
        if builtin and not on_disk:
            folders = list(self.include_dirs)
        else:
            folders = [_dir_of(source.name)] + self.include_dirs
        if os.path.isabs(name):
            candidates = [name]
        else:
            candidates = [os.path.join(folder, name) for folder in folders]
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate, os.path.realpath(candidate)
        if builtin:
            return None
        places = [] if os.path.isabs(name) else [repr(folder) for folder in folders]
        if self.files:
            places.insert(0, f"the given files ({', '.join(sorted(n for n, _ in self.files.values()))})")
        searched = f" (searched, in order: {', '.join(places)})" if places else ""
        raise tokens.error(at, f"cannot find {what} {name!r}{searched}")


def _directive_positions(kinds: list[str]):
    """Indices of the '#' tokens, found at C speed."""
    at = -1
    try:
        while True:
            at = kinds.index("#", at + 1)
            yield at
    except ValueError:
        return


def _depth_change(kinds: list[str], start: int, end: int) -> int:
    part = kinds[start:end]
    return part.count("{") - part.count("}")


def _copy(out: Tokens, tokens: Tokens, start: int, end: int, source: Source) -> None:
    """Append tokens[start:end] (all from ``source``) to ``out``."""
    if start >= end:
        return
    _add_segment(out, source, start)
    if end - start > len(out.kinds):
        # A long stretch (a whole file after its #include lines): the few tokens before it go in front of the
        # slice, which becomes the list, rather than the slice being copied again and thrown away.
        for name in ("kinds", "values", "texts"):
            part = getattr(tokens, name)[start:end]
            part[:0] = getattr(out, name)
            setattr(out, name, part)
        return
    out.kinds += tokens.kinds[start:end]
    out.values += tokens.values[start:end]
    out.texts += tokens.texts[start:end]


def _add_segment(out: Tokens, source: Source, local: int) -> None:
    """Record that the next token appended to ``out`` is token ``local`` of ``source``, unless that already
    follows from the last segment."""
    here = len(out.kinds)
    if out.segments:
        first, last_source, last_local = out.segments[-1]
        if last_source is source and last_local + here - first == local:
            return
    out.segments.append((here, source, local))


def _dir_of(filename: str) -> str:
    return os.path.dirname(filename) or "."
