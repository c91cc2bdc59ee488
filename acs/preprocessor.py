"""Turns a source file into one token stream: splices #include files, marks the built-in headers, refuses libraries."""

from __future__ import annotations

import os

from .errors import AcsError, Source
from .lexer import Token, tokenize

# Headers acc ships beside itself; wadgym provides their definitions from its own tables.
BUILTIN_HEADERS = ("zcommon.acs", "zspecial.acs", "zdefs.acs", "zwvars.acs")


def decode_source(data: bytes | str) -> str:
    """Source text from bytes or str; undecodable bytes survive (as surrogates) into string literals."""
    if isinstance(data, bytes):
        text = data.decode("utf-8", "surrogateescape")
    elif isinstance(data, str):
        text = data
    else:
        raise AcsError(f"source must be str or bytes, not {type(data).__name__}")
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path: str, *, included_from: Token | None = None) -> Source:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        message = f"cannot read {path!r}: {exc.strerror or exc}"
        if included_from is not None:
            raise included_from.error(message) from None
        raise AcsError(message, file=path) from None
    return Source(path, decode_source(data))


def preprocess(source: Source, include_dirs=()) -> list[Token]:
    """Tokens of ``source`` with every ``#include`` replaced by the included file's tokens.

    ``#include "zcommon.acs"`` (and zspecial/zdefs/zwvars) becomes one ``builtin`` token whose value is
    the header's name, so no file is read for it.
    """
    expander = _IncludeExpander([str(d) for d in include_dirs])
    root = [os.path.realpath(source.name)] if os.path.isfile(source.name) else []
    expander.expand(source, root)
    expander.out.append(expander.last_eof)
    return expander.out


class _IncludeExpander:
    def __init__(self, include_dirs: list[str]):
        self.include_dirs = include_dirs
        self.out: list[Token] = []
        self.depth = 0  # brace depth, to keep directives out of scripts and functions
        self.last_eof: Token | None = None

    def expand(self, source: Source, stack: list[str]) -> None:
        tokens = tokenize(source)
        out = self.out
        i = 0
        count = len(tokens) - 1  # the last token is eof
        while i < count:
            tok = tokens[i]
            kind = tok.kind
            if kind == "{":
                self.depth += 1
            elif kind == "}":
                self.depth -= 1
            elif kind == "#" and i + 1 < count:
                directive = tokens[i + 1]
                if directive.kind in ("include", "import", "library"):
                    if self.depth > 0:
                        raise tok.error(f"#{directive.kind} must stand outside scripts and functions")
                    i = self._directive(tok, directive, tokens, i, source, stack)
                    continue
            out.append(tok)
            i += 1
        self.last_eof = tokens[-1]

    def _directive(self, hash_tok: Token, directive: Token, tokens: list[Token], i: int,
                   source: Source, stack: list[str]) -> int:
        if directive.kind == "library":
            raise directive.error("#library is not supported: wadgym compiles a map's scripts into one "
                                  "BEHAVIOR lump; #include the shared file instead")
        name_tok = tokens[i + 2]
        if name_tok.kind != "string":
            raise name_tok.error(f"#{directive.kind} needs a file name in double quotes")
        if directive.kind == "import":
            raise directive.error(f"#import \"{name_tok.value}\" is not supported: ACS libraries are not "
                                  "available; #include the file instead")
        self._include(name_tok, source, stack)
        return i + 3

    def _include(self, name_tok: Token, source: Source, stack: list[str]) -> None:
        name = name_tok.value
        if name.lower() in BUILTIN_HEADERS:
            self.out.append(Token("builtin", name.lower(), name_tok.text, name_tok.offset, name_tok.source))
            return
        path = self._find(name, source)
        if path is None:
            searched = [_dir_of(source.name)] + self.include_dirs
            raise name_tok.error(f"cannot find include file {name!r} (searched: {', '.join(searched)})")
        key = os.path.realpath(path)
        if key in stack:
            chain = " -> ".join(os.path.basename(p) for p in stack + [key])
            raise name_tok.error(f"include cycle: {chain}")
        if len(stack) >= 64:
            raise name_tok.error("includes nested more than 64 deep")
        included = read_source(path, included_from=name_tok)
        self.expand(included, stack + [key])

    def _find(self, name: str, source: Source) -> str | None:
        if os.path.isabs(name):
            return name if os.path.isfile(name) else None
        for directory in [_dir_of(source.name)] + self.include_dirs:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        return None


def _dir_of(filename: str) -> str:
    return os.path.dirname(filename) or "."
