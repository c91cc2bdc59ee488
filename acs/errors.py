"""The compiler's one error type and the source positions it points at."""

from __future__ import annotations

import bisect


class Source:
    """One source text with its name; turns character offsets into line, column and line text.

    ``token_offsets`` caches where its tokens start (the lexer fills it in when a message first needs it).
    """

    __slots__ = ("name", "text", "_line_starts", "token_offsets")

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text
        self._line_starts: list[int] | None = None
        self.token_offsets: list[int] | None = None

    def locate(self, offset: int) -> tuple[int, int, str]:
        """(1-based line, 1-based column, text of that line) for a character offset."""
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            at = find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = find("\n", at + 1)
            self._line_starts = starts
        offset = max(0, min(offset, len(self.text)))
        index = bisect.bisect_right(self._line_starts, offset) - 1
        start = self._line_starts[index]
        end = self.text.find("\n", start)
        line_text = self.text[start:] if end < 0 else self.text[start:end]
        return index + 1, offset - start + 1, line_text.rstrip("\r")


class AcsError(Exception):
    """A compile error: ``file:line:col: error: message``, then the source line and a caret under the spot.

    Attributes ``file``, ``line``, ``col`` (None when the error has no position) and ``message``.
    """

    def __init__(self, message: str, source: Source | None = None, offset: int = 0, *, file: str | None = None):
        self.message = message
        self.file = source.name if source is not None else file
        self.line: int | None = None
        self.col: int | None = None
        self.source_line: str | None = None
        if source is not None:
            self.line, self.col, self.source_line = source.locate(offset)
        super().__init__(self._render())

    def _render(self) -> str:
        if self.line is None:
            where = f"{self.file}: " if self.file else ""
            return f"{where}error: {self.message}"
        head = f"{self.file}:{self.line}:{self.col}: error: {self.message}"
        shown = _printable(self.source_line or "")
        # Keep tabs in the caret's indent so it lines up under tabbed source.
        indent = "".join(c if c == "\t" else " " for c in shown[: self.col - 1])
        return f"{head}\n{shown}\n{indent}^"


def _printable(line: str) -> str:
    return "".join(c if c == "\t" or c >= " " else " " for c in line)
