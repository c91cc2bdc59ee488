"""Syntax tree of an ACS program as the parser builds it. Nothing changes it afterwards: what the checker finds
out about a node (the symbol a name means, a string's number, a script's layout) it returns separately.

Every node's ``at`` is the index of the token it stands at in the program's token stream (``Program.tokens``),
which is where messages about it point.
"""

from __future__ import annotations


class Node:
    __slots__ = ("at",)


# ---- expressions -------------------------------------------------------------------------------

class Expr(Node):
    __slots__ = ()


class Number(Expr):
    __slots__ = ("value",)

    def __init__(self, at: int, value: int):
        self.at, self.value = at, value


class String(Expr):
    __slots__ = ("text",)

    def __init__(self, at: int, text: str):
        self.at, self.text = at, text


class Name(Expr):
    """An identifier used as a value, assigned to, or naming an array; ``name`` is lower-cased."""

    __slots__ = ("name",)

    def __init__(self, at: int, name: str):
        self.at, self.name = at, name


class Subscript(Expr):
    """``name[i][j]...``: an array element."""

    __slots__ = ("base", "indices")

    def __init__(self, at: int, base: Name, indices: list[Expr]):
        self.at, self.base, self.indices = at, base, indices


class Unary(Expr):
    __slots__ = ("op", "operand")  # op: '-', '!', '~'

    def __init__(self, at: int, op: str, operand: Expr):
        self.at, self.op, self.operand = at, op, operand


class Binary(Expr):
    __slots__ = ("op", "left", "right")

    def __init__(self, at: int, op: str, left: Expr, right: Expr):
        self.at, self.op, self.left, self.right = at, op, left, right


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

    def __init__(self, at: int, cond: Expr, then: Expr, other: Expr):
        self.at, self.cond, self.then, self.other = at, cond, then, other


class IncDec(Expr):
    """``++x``, ``x--``... used for its value; as a statement see IncDecStatement."""

    __slots__ = ("op", "target", "prefix")

    def __init__(self, at: int, op: str, target: Expr, prefix: bool):
        self.at, self.op, self.target, self.prefix = at, op, target, prefix


class Call(Expr):
    """``name(args)``; ``args`` holds None for an argument left out (``f(1, , 3)``); ``direct`` is acc's
    ``const:`` form."""

    __slots__ = ("name", "args", "direct")

    def __init__(self, at: int, name: str, args: list, direct: bool = False):
        self.at, self.name, self.args, self.direct = at, name, args, direct


class PrintItem(Node):
    """One ``x:value`` of a print; for ``a:`` arrays ``value`` is a CharRange."""

    __slots__ = ("kind", "value")

    def __init__(self, at: int, kind: str, value):
        self.at, self.kind, self.value = at, kind, value


class CharRange(Node):
    """The array part of ``a:arr``, ``a:(arr, start)``, ``a:(arr, start, length)`` or strcpy's target."""

    __slots__ = ("array", "start", "length", "ranged")

    def __init__(self, at: int, array: Expr, start: Expr | None, length: Expr | None, ranged: bool):
        self.at, self.array, self.start, self.length, self.ranged = at, array, start, length, ranged


class StrParam(Expr):
    __slots__ = ("items",)

    def __init__(self, at: int, items: list[PrintItem]):
        self.at, self.items = at, items


class StrCpy(Expr):
    """``strcpy(a:dest, source [, offset])``."""

    __slots__ = ("dest", "source", "offset")

    def __init__(self, at: int, dest: CharRange, source: Expr, offset: Expr | None):
        self.at, self.dest, self.source, self.offset = at, dest, source, offset


class MorphActor(Expr):
    __slots__ = ("args",)

    def __init__(self, at: int, args: list):
        self.at, self.args = at, args


# ---- statements --------------------------------------------------------------------------------

class Stmt(Node):
    __slots__ = ()


class Compound(Stmt):
    __slots__ = ("body",)

    def __init__(self, at: int, body: list[Stmt]):
        self.at, self.body = at, body


class Empty(Stmt):
    __slots__ = ()

    def __init__(self, at: int):
        self.at = at


class Declarator(Node):
    """One name of a declaration: ``x``, ``x = e``, ``a[3][2] = {...}`` (``dims`` None for a scalar)."""

    __slots__ = ("name", "dims", "init")

    def __init__(self, at: int, name: str, dims: list[Expr] | None, init):
        self.at, self.name, self.dims, self.init = at, name, dims, init


class ArrayInit(Node):
    """A braced initializer; ``items`` holds expressions, nested ArrayInits and None for skipped slots."""

    __slots__ = ("items",)

    def __init__(self, at: int, items: list):
        self.at, self.items = at, items


class VarDecl(Stmt):
    """``int a, b = 2;`` in a script or function, or ``static int ...``."""

    __slots__ = ("type", "declarators", "static")

    def __init__(self, at: int, type_: str, declarators: list[Declarator], static: bool):
        self.at, self.type, self.declarators, self.static = at, type_, declarators, static


class Assign(Stmt):
    """``target op value`` with op one of = += -= *= /= %= &= ^= |= <<= >>=."""

    __slots__ = ("target", "op", "value")

    def __init__(self, at: int, target: Expr, op: str, value: Expr):
        self.at, self.target, self.op, self.value = at, target, op, value


class IncDecStatement(Stmt):
    __slots__ = ("op", "target")

    def __init__(self, at: int, op: str, target: Expr):
        self.at, self.op, self.target = at, op, target


class StatementList(Stmt):
    """``a = 1, b++, c += 2;``: several assignments in one statement."""

    __slots__ = ("items",)

    def __init__(self, at: int, items: list[Stmt]):
        self.at, self.items = at, items


class ExprStatement(Stmt):
    """A call (or strparam/strcpy/morphactor) whose value, if any, is discarded."""

    __slots__ = ("expr",)

    def __init__(self, at: int, expr: Expr):
        self.at, self.expr = at, expr


class Print(Stmt):
    """Print, PrintBold, Log."""

    __slots__ = ("kind", "items")

    def __init__(self, at: int, kind: str, items: list[PrintItem]):
        self.at, self.kind, self.items = at, kind, items


class HudMessage(Stmt):
    __slots__ = ("bold", "items", "args")

    def __init__(self, at: int, bold: bool, items: list[PrintItem], args: list[Expr]):
        self.at, self.bold, self.items, self.args = at, bold, items, args


class ExecuteWait(Stmt):
    """ACS_ExecuteWait / ACS_NamedExecuteWait: start a script, then wait for it."""

    __slots__ = ("call", "named")

    def __init__(self, at: int, call: Call, named: bool):
        self.at, self.call, self.named = at, call, named


class If(Stmt):
    __slots__ = ("cond", "then", "other")

    def __init__(self, at: int, cond: Expr, then: Stmt, other: Stmt | None):
        self.at, self.cond, self.then, self.other = at, cond, then, other


class While(Stmt):
    __slots__ = ("until", "cond", "body")

    def __init__(self, at: int, until: bool, cond: Expr, body: Stmt):
        self.at, self.until, self.cond, self.body = at, until, cond, body


class DoWhile(Stmt):
    __slots__ = ("until", "body", "cond")

    def __init__(self, at: int, until: bool, body: Stmt, cond: Expr):
        self.at, self.until, self.body, self.cond = at, until, body, cond


class For(Stmt):
    __slots__ = ("init", "cond", "step", "body")

    def __init__(self, at: int, init: Stmt | None, cond: Expr | None, step: Stmt | None, body: Stmt):
        self.at, self.init, self.cond, self.step, self.body = at, init, cond, step, body


class Switch(Stmt):
    __slots__ = ("expr", "body")

    def __init__(self, at: int, expr: Expr, body: Stmt):
        self.at, self.expr, self.body = at, expr, body


class Case(Stmt):
    """``case value:``, or ``default:`` when ``value`` is None."""

    __slots__ = ("value",)

    def __init__(self, at: int, value: Expr | None):
        self.at, self.value = at, value


class Jump(Stmt):
    """break, continue, restart, terminate, suspend."""

    __slots__ = ("kind",)

    def __init__(self, at: int, kind: str):
        self.at, self.kind = at, kind


class Return(Stmt):
    __slots__ = ("value",)

    def __init__(self, at: int, value: Expr | None):
        self.at, self.value = at, value


class TranslationRange(Node):
    """One ``a:b = ...`` of CreateTranslation; ``kind`` palette/rgb/desat/colourise/tint and the operand
    expressions."""

    __slots__ = ("kind", "operands")

    def __init__(self, at: int, kind: str, operands: list[Expr]):
        self.at, self.kind, self.operands = at, kind, operands


class CreateTranslation(Stmt):
    __slots__ = ("number", "ranges")

    def __init__(self, at: int, number: Expr, ranges: list[TranslationRange]):
        self.at, self.number, self.ranges = at, number, ranges


# ---- top level ---------------------------------------------------------------------------------

class Param(Node):
    __slots__ = ("type", "name")

    def __init__(self, at: int, type_: str, name: str):
        self.at, self.type, self.name = at, type_, name


class ScriptDef(Node):
    """``script N [(args)] [TYPE] [NET] [CLIENTSIDE] { ... }``: ``number`` is an Expr, or None for a named
    script (``name``); ``explicit_zero`` when written ``<<0>>``, the only way acc allows script 0;
    ``parenthesized`` when the arguments (or ``(void)``) were given."""

    __slots__ = ("number", "name", "params", "kind", "flags", "body", "end", "explicit_zero", "parenthesized")

    def __init__(self, at: int, number: Expr | None, name: str | None, params: list[Param], kind: str,
                 flags: int, body: Stmt | None, end: int, explicit_zero: bool = False, parenthesized: bool = False):
        self.at, self.number, self.name, self.params, self.kind = at, number, name, params, kind
        self.flags, self.body, self.end = flags, body, end
        self.explicit_zero, self.parenthesized = explicit_zero, parenthesized


class FunctionDef(Node):
    """``function TYPE name(params) { body }``; ``at`` is the name; ``end`` the closing brace. In a library
    being imported ``body`` is None (acc reads only the declaration)."""

    __slots__ = ("return_type", "name", "params", "body", "end")

    def __init__(self, at: int, return_type: str, name: str, params: list[Param], body: list[Stmt] | None,
                 end: int):
        self.at, self.return_type, self.name, self.params = at, return_type, name, params
        self.body, self.end = body, end


class MapVarDecl(Node):
    __slots__ = ("type", "declarators")

    def __init__(self, at: int, type_: str, declarators: list[Declarator]):
        self.at, self.type, self.declarators = at, type_, declarators


class WorldVar(Node):
    """One ``N:name`` or ``N:name[]`` of a world/global declaration."""

    __slots__ = ("index", "name", "is_array")

    def __init__(self, at: int, index: Expr, name: str, is_array: bool):
        self.at, self.index, self.name, self.is_array = at, index, name, is_array


class WorldVarDecl(Node):
    __slots__ = ("scope", "type", "variables")

    def __init__(self, at: int, scope: str, type_: str, variables: list[WorldVar]):
        self.at, self.scope, self.type, self.variables = at, scope, type_, variables


class Define(Node):
    """``#define NAME value``, or ``#libdefine`` (``exported``: it outlives an import of the file)."""

    __slots__ = ("name", "value", "exported")

    def __init__(self, at: int, name: str, value: Expr, exported: bool = False):
        self.at, self.name, self.value, self.exported = at, name, value, exported


class SpecialDef(Node):
    """One entry of a ``special`` declaration: ``80:ACS_Execute(1,5)``."""

    __slots__ = ("number", "name", "min_args", "max_args")

    def __init__(self, at: int, name: str, number: int, min_args: int, max_args: int):
        self.at, self.name, self.number = at, name, number
        self.min_args, self.max_args = min_args, max_args


class Directive(Node):
    """#nocompact, #wadauthor, #nowadauthor, #encryptstrings, #library (``value`` the library's name), or a
    built-in include (``value`` the header's name)."""

    __slots__ = ("name", "value")

    def __init__(self, at: int, name: str, value: str = ""):
        self.at, self.name, self.value = at, name, value


class Import(Node):
    """``#import "file"``: ``program`` holds the declarations of the library file (function bodies and
    scripts are not read, as acc does not read them); ``path`` is the file found."""

    __slots__ = ("path", "program")

    def __init__(self, at: int, path: str, program: Program):
        self.at, self.path, self.program = at, path, program


class Program(Node):
    """A whole file: its top-level items and the token stream every node's ``at`` indexes."""

    __slots__ = ("items", "tokens")

    def __init__(self, at: int, items: list[Node], tokens):
        self.at, self.items, self.tokens = at, items, tokens


EXPRESSIONS = (Number, String, Name, Subscript, Unary, Binary, Ternary, IncDec, Call, StrParam, StrCpy, MorphActor)
STATEMENTS = (Compound, Empty, VarDecl, Assign, IncDecStatement, StatementList, ExprStatement, Print, HudMessage,
              ExecuteWait, If, While, DoWhile, For, Switch, Case, Jump, Return, CreateTranslation)
TOP_LEVEL = (ScriptDef, FunctionDef, MapVarDecl, WorldVarDecl, Define, SpecialDef, Directive, Import)
