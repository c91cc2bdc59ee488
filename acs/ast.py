"""Syntax tree of an ACS program as the parser builds it; the checker fills in the annotated fields."""

from __future__ import annotations

from .lexer import Token


class Node:
    """Base of every node; ``tok`` is the token the error messages point at."""

    __slots__ = ("tok",)

    def error(self, message: str):
        return self.tok.error(message)

    def line(self) -> int:
        """The 1-based source line this node starts on."""
        return self.tok.source.locate(self.tok.offset)[0]


# ---- expressions -------------------------------------------------------------------------------

class Expr(Node):
    __slots__ = ()


class Number(Expr):
    __slots__ = ("value",)

    def __init__(self, tok: Token, value: int):
        self.tok, self.value = tok, value


class String(Expr):
    __slots__ = ("text", "index")  # index: position in the string pool, set by the checker

    def __init__(self, tok: Token, text: str):
        self.tok, self.text, self.index = tok, text, -1


class Name(Expr):
    """An identifier used as a value; ``sym`` is what it names, set by the checker."""

    __slots__ = ("name", "sym")

    def __init__(self, tok: Token):
        self.tok, self.name, self.sym = tok, tok.value, None


class Subscript(Expr):
    """``name[i][j]...``: an array element."""

    __slots__ = ("base", "indices")

    def __init__(self, tok: Token, base: Name, indices: list[Expr]):
        self.tok, self.base, self.indices = tok, base, indices


class Unary(Expr):
    __slots__ = ("op", "operand")  # op: '-', '!', '~'

    def __init__(self, tok: Token, op: str, operand: Expr):
        self.tok, self.op, self.operand = tok, op, operand


class Binary(Expr):
    __slots__ = ("op", "left", "right")

    def __init__(self, tok: Token, op: str, left: Expr, right: Expr):
        self.tok, self.op, self.left, self.right = tok, op, left, right


def binary_chain(node: Binary) -> tuple[Expr, list[Binary]]:
    """``a op b op c ...`` as (a, the Binary nodes in evaluation order), walking the left spine without
    recursion so that a chain of thousands of operators needs no deep stack."""
    links = []
    while type(node) is Binary:
        links.append(node)
        node = node.left
    links.reverse()
    return node, links


class Ternary(Expr):
    __slots__ = ("cond", "then", "other")

    def __init__(self, tok: Token, cond: Expr, then: Expr, other: Expr):
        self.tok, self.cond, self.then, self.other = tok, cond, then, other


class IncDec(Expr):
    """``++x``, ``x--``... used for its value; as a statement see IncDecStatement."""

    __slots__ = ("op", "target", "prefix")

    def __init__(self, tok: Token, op: str, target: Expr, prefix: bool):
        self.tok, self.op, self.target, self.prefix = tok, op, target, prefix


class Call(Expr):
    """``name(args)``; ``args`` holds None for an argument left out (``f(1, , 3)``).

    ``direct`` is acc's ``const:`` form. The checker sets ``target`` (a symbol), ``fills`` (how many
    trailing arguments the call is padded with, as zeros) and, for ``const:``, ``values``: the folded
    arguments, padding included.
    """

    __slots__ = ("name", "args", "direct", "target", "fills", "values")

    def __init__(self, tok: Token, name: str, args: list, direct: bool = False):
        self.tok, self.name, self.args, self.direct = tok, name, args, direct
        self.target = None
        self.fills = 0
        self.values: list[int] = []


class PrintItem(Node):
    """One ``x:value`` of a print; for ``a:`` arrays ``value`` is a CharRange."""

    __slots__ = ("kind", "value")

    def __init__(self, tok: Token, kind: str, value):
        self.tok, self.kind, self.value = tok, kind, value


class CharRange(Node):
    """The array part of ``a:arr``, ``a:(arr, start)``, ``a:(arr, start, length)`` or strcpy's target."""

    __slots__ = ("array", "start", "length", "ranged")

    def __init__(self, tok: Token, array: Expr, start: Expr | None, length: Expr | None, ranged: bool):
        self.tok, self.array, self.start, self.length, self.ranged = tok, array, start, length, ranged


class StrParam(Expr):
    __slots__ = ("items",)

    def __init__(self, tok: Token, items: list[PrintItem]):
        self.tok, self.items = tok, items


class StrCpy(Expr):
    """``strcpy(a:dest, source [, offset])``."""

    __slots__ = ("dest", "source", "offset")

    def __init__(self, tok: Token, dest: CharRange, source: Expr, offset: Expr | None):
        self.tok, self.dest, self.source, self.offset = tok, dest, source, offset


class MorphActor(Expr):
    __slots__ = ("args", "empty_index")  # empty_index: the pool index of "", pushed for omitted names

    def __init__(self, tok: Token, args: list):
        self.tok, self.args, self.empty_index = tok, args, -1


# ---- statements --------------------------------------------------------------------------------

class Stmt(Node):
    __slots__ = ()


class Compound(Stmt):
    __slots__ = ("body",)

    def __init__(self, tok: Token, body: list[Stmt]):
        self.tok, self.body = tok, body


class Empty(Stmt):
    __slots__ = ()

    def __init__(self, tok: Token):
        self.tok = tok


class Declarator(Node):
    """One name of a declaration: ``x``, ``x = e``, ``a[3][2] = {...}``.

    The checker sets ``sym``, ``sizes`` (evaluated dimensions) and ``values``: for a map variable a
    one-item list, for a map array {element offset: value}, for a local array [(element offset, expr)].
    """

    __slots__ = ("name", "dims", "init", "sym", "sizes", "values")

    def __init__(self, tok: Token, dims: list[Expr] | None, init):
        self.tok, self.name, self.dims, self.init = tok, tok.value, dims, init
        self.sym = None
        self.sizes: list[int] = []
        self.values = None


class ArrayInit(Node):
    """A braced initializer; ``items`` holds expressions, nested ArrayInits and None for skipped slots."""

    __slots__ = ("items",)

    def __init__(self, tok: Token, items: list):
        self.tok, self.items = tok, items


class VarDecl(Stmt):
    """``int a, b = 2;`` in a script or function, or ``static int ...``."""

    __slots__ = ("type", "declarators", "static")

    def __init__(self, tok: Token, type_: str, declarators: list[Declarator], static: bool):
        self.tok, self.type, self.declarators, self.static = tok, type_, declarators, static


class Assign(Stmt):
    """``target op value`` with op one of = += -= *= /= %= &= ^= |= <<= >>=."""

    __slots__ = ("target", "op", "value")

    def __init__(self, tok: Token, target: Expr, op: str, value: Expr):
        self.tok, self.target, self.op, self.value = tok, target, op, value


class IncDecStatement(Stmt):
    __slots__ = ("op", "target")

    def __init__(self, tok: Token, op: str, target: Expr):
        self.tok, self.op, self.target = tok, op, target


class StatementList(Stmt):
    """``a = 1, b++, c += 2;``: several assignments in one statement."""

    __slots__ = ("items",)

    def __init__(self, tok: Token, items: list[Stmt]):
        self.tok, self.items = tok, items


class ExprStatement(Stmt):
    """A call (or strparam/strcpy/morphactor) whose value, if any, is discarded."""

    __slots__ = ("expr",)

    def __init__(self, tok: Token, expr: Expr):
        self.tok, self.expr = tok, expr


class Print(Stmt):
    """Print, PrintBold, Log."""

    __slots__ = ("kind", "items")

    def __init__(self, tok: Token, kind: str, items: list[PrintItem]):
        self.tok, self.kind, self.items = tok, kind, items


class HudMessage(Stmt):
    __slots__ = ("bold", "items", "args")

    def __init__(self, tok: Token, bold: bool, items: list[PrintItem], args: list[Expr]):
        self.tok, self.bold, self.items, self.args = tok, bold, items, args


class ExecuteWait(Stmt):
    """ACS_ExecuteWait / ACS_NamedExecuteWait: start a script, then wait for it."""

    __slots__ = ("call", "named")

    def __init__(self, tok: Token, call: Call, named: bool):
        self.tok, self.call, self.named = tok, call, named


class If(Stmt):
    __slots__ = ("cond", "then", "other")

    def __init__(self, tok: Token, cond: Expr, then: Stmt, other: Stmt | None):
        self.tok, self.cond, self.then, self.other = tok, cond, then, other


class While(Stmt):
    __slots__ = ("until", "cond", "body")

    def __init__(self, tok: Token, until: bool, cond: Expr, body: Stmt):
        self.tok, self.until, self.cond, self.body = tok, until, cond, body


class DoWhile(Stmt):
    __slots__ = ("until", "body", "cond")

    def __init__(self, tok: Token, until: bool, body: Stmt, cond: Expr):
        self.tok, self.until, self.body, self.cond = tok, until, body, cond


class For(Stmt):
    __slots__ = ("init", "cond", "step", "body")

    def __init__(self, tok: Token, init: Stmt | None, cond: Expr | None, step: Stmt | None, body: Stmt):
        self.tok, self.init, self.cond, self.step, self.body = tok, init, cond, step, body


class Switch(Stmt):
    __slots__ = ("expr", "body")

    def __init__(self, tok: Token, expr: Expr, body: Stmt):
        self.tok, self.expr, self.body = tok, expr, body


class Case(Stmt):
    """``case value:`` (``value`` None for ``default:``); the checker sets ``number``."""

    __slots__ = ("value", "number")

    def __init__(self, tok: Token, value: Expr | None):
        self.tok, self.value, self.number = tok, value, 0


class Jump(Stmt):
    """break, continue, restart, terminate, suspend."""

    __slots__ = ("kind",)

    def __init__(self, tok: Token, kind: str):
        self.tok, self.kind = tok, kind


class Return(Stmt):
    __slots__ = ("value",)

    def __init__(self, tok: Token, value: Expr | None):
        self.tok, self.value = tok, value


class TranslationRange(Node):
    """One ``a:b = ...`` of CreateTranslation; ``kind`` palette/rgb/desat and the operand expressions."""

    __slots__ = ("kind", "operands")

    def __init__(self, tok: Token, kind: str, operands: list[Expr]):
        self.tok, self.kind, self.operands = tok, kind, operands


class CreateTranslation(Stmt):
    __slots__ = ("number", "ranges")

    def __init__(self, tok: Token, number: Expr, ranges: list[TranslationRange]):
        self.tok, self.number, self.ranges = tok, number, ranges


# ---- top level ---------------------------------------------------------------------------------

class Param(Node):
    __slots__ = ("type", "name")

    def __init__(self, tok: Token, type_: str):
        self.tok, self.type, self.name = tok, type_, tok.value


class ScriptDef(Node):
    """``script N [(args)] [TYPE] [NET] [CLIENTSIDE] { ... }``; ``number`` is an Expr, or None for a named script."""

    __slots__ = ("number", "name", "params", "kind", "flags", "body", "script_number", "var_count",
                 "array_sizes", "end_tok", "explicit_zero")

    def __init__(self, tok: Token, number: Expr | None, name: str | None, params: list[Param], kind: str,
                 flags: int, body: Stmt, end_tok: Token):
        self.tok, self.number, self.name, self.params, self.kind = tok, number, name, params, kind
        self.flags, self.body, self.end_tok = flags, body, end_tok
        self.script_number = 0
        self.var_count = 0
        self.array_sizes: list[int] = []
        self.explicit_zero = False  # written <<0>>, the only way acc allows script 0


class FunctionDef(Node):
    __slots__ = ("return_type", "name", "params", "body", "end_tok", "sym", "var_count", "array_sizes")

    def __init__(self, tok: Token, return_type: str, name: str, params: list[Param], body: list[Stmt],
                 end_tok: Token):
        self.tok, self.return_type, self.name, self.params = tok, return_type, name, params
        self.body, self.end_tok = body, end_tok
        self.sym = None
        self.var_count = 0
        self.array_sizes: list[int] = []


class MapVarDecl(Node):
    __slots__ = ("type", "declarators")

    def __init__(self, tok: Token, type_: str, declarators: list[Declarator]):
        self.tok, self.type, self.declarators = tok, type_, declarators


class WorldVar(Node):
    """One ``N:name`` or ``N:name[]`` of a world/global declaration."""

    __slots__ = ("index", "name", "is_array", "sym")

    def __init__(self, tok: Token, index: Expr, is_array: bool):
        self.tok, self.index, self.name, self.is_array, self.sym = tok, index, tok.value, is_array, None


class WorldVarDecl(Node):
    __slots__ = ("scope", "type", "variables")

    def __init__(self, tok: Token, scope: str, type_: str, variables: list[WorldVar]):
        self.tok, self.scope, self.type, self.variables = tok, scope, type_, variables


class Define(Node):
    __slots__ = ("name", "value")

    def __init__(self, tok: Token, value: Expr):
        self.tok, self.name, self.value = tok, tok.value, value


class SpecialDef(Node):
    """One entry of a ``special`` declaration: ``80:ACS_Execute(1,5)``."""

    __slots__ = ("number", "name", "min_args", "max_args")

    def __init__(self, tok: Token, number: int, min_args: int, max_args: int):
        self.tok, self.number, self.name = tok, number, tok.value
        self.min_args, self.max_args = min_args, max_args


class Directive(Node):
    """#nocompact, #wadauthor, #nowadauthor, #encryptstrings, or a built-in include (``value`` its name)."""

    __slots__ = ("name", "value")

    def __init__(self, tok: Token, name: str, value: str = ""):
        self.tok, self.name, self.value = tok, name, value


class Program(Node):
    __slots__ = ("items",)

    def __init__(self, tok: Token, items: list[Node]):
        self.tok, self.items = tok, items
