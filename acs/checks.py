"""Semantic checks: resolves every name, numbers variables, functions and strings in acc's order, folds constants,
reads the declarations of imported libraries. ``check(program)`` returns what it found as a Findings value."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import ast
from . import builtins as bi
from .format import SCRIPT_TYPES, UNSUPPORTED_SCRIPT_TYPES
from .lexer import Tokens, wrap32
from .objfile import MapVariable

MAX_MAP_VARIABLES = 128
MAX_WORLD_VARIABLES = 256
MAX_GLOBAL_VARIABLES = 64
MAX_SCRIPT_ARGS = 4
MAX_FUNCTIONS = 256  # a compact CALL names its function in one byte
MAX_CALLFUNC_INDEX = 32767  # CALLFUNC's index operand is a signed 16-bit number in compact code
MAX_CALLFUNC_ARGS = 255  # and its argument count one byte
MAX_SPECIAL_NUMBER = 255  # a higher one needs LSPEC5EX, which ViZDoom's engine lacks
MAX_SPECIAL_ARGS = 5  # LSPEC1..LSPEC5: a line special reads at most five arguments
COMPACT_SLOTS = 256  # compact p-code names a local variable in one byte
MAX_FUNCTION_PART = 255  # the FUNC chunk stores a function's argument and local counts in one byte each
MAX_SCRIPT_SLOTS = 0xFFFF  # SVCT stores a script's variable count in 16 bits
MAX_IMPORTS = 256
LIBRARY_NAME_LENGTH = 8  # acc keeps this much of a #library name: it is the library's lump name

_ARRAY_KINDS = {"scriptarray", "maparray", "worldarray", "globalarray"}
MORPH_STRING_ARGS = (1, 2, 5, 6)  # MorphActor's class and flash names


class Variable:
    """A variable or array: ``kind`` scriptvar/mapvar/worldvar/globalvar or one of the *array kinds;
    ``imported`` for a map variable another library defines."""

    __slots__ = ("name", "kind", "index", "multipliers", "sizes", "imported", "is_array", "ndim")

    def __init__(self, name: str, kind: str, index: int, sizes: list[int] | None = None, imported: bool = False):
        self.name, self.kind, self.index, self.imported = name, kind, index, imported
        if not sizes:  # a scalar (or a world/global array): nothing to multiply, quickly
            self.sizes, self.multipliers = [], []
            self.is_array = kind in _ARRAY_KINDS
            self.ndim = 1 if self.is_array else 0
            return
        self.sizes = sizes
        self.is_array = kind in _ARRAY_KINDS
        self.ndim = max(1, len(self.sizes)) if self.is_array else 0
        # acc's per-dimension multipliers: the last is 1, each earlier one the product of the later sizes.
        self.multipliers = [1] * len(self.sizes)
        for i in range(len(self.sizes) - 2, -1, -1):
            self.multipliers[i] = wrap32(self.multipliers[i + 1] * self.sizes[i + 1])

    def describe(self) -> str:
        scope = self.kind.replace("var", " variable").replace("array", " array")
        return scope.replace("script ", "local ")


class Function:
    """A function (``name`` as first written): defined here (``node``) or imported from a library (``node``
    None). ``number`` is its
    entry in the FUNC table, set when acc would add it there: at the end of the definition, or at the first
    mention of an imported one. ``var_count`` and ``array_sizes`` describe a defined function's locals."""

    __slots__ = ("name", "node", "arg_count", "returns", "number", "var_count", "array_sizes")

    def __init__(self, name: str, arg_count: int, returns: bool, node: ast.FunctionDef | None = None):
        self.name, self.arg_count, self.returns, self.node = name, arg_count, returns, node
        self.number: int | None = None
        self.var_count = arg_count
        self.array_sizes: list[int] = []

    @property
    def imported(self) -> bool:
        return self.node is None

    def describe(self) -> str:
        return "function"


@dataclass
class ScriptLayout:
    """A script's number (negative for named scripts), its variable count and its local arrays' sizes."""

    number: int
    var_count: int
    array_sizes: list[int]


class CallFacts:
    """What a call resolved to: ``target`` (a Function or a builtins entry), ``fills`` (trailing arguments
    padded with 0) and, for ``const:``, the folded argument ``values``."""

    __slots__ = ("target", "fills", "values")

    def __init__(self, target, fills: int = 0, values: list[int] | None = None):
        self.target, self.fills, self.values = target, fills, values


@dataclass
class Findings:
    """Everything the checker worked out, which the code generator needs besides the tree itself.

    ``facts`` holds per node: for a Name the symbol it means (Variable, Constant, Special); for a String its
    index in ``strings``; for a Call (and an ExecuteWait's call) its CallFacts; for a Declarator its Variable,
    or (Variable, [(element offset, expression)]) for a local array with an initializer; for a ScriptDef its
    ScriptLayout; for a FunctionDef its Function; for a Case its value; for a MorphActor the index of "".
    """

    facts: dict
    strings: list[str]
    script_names: list[str]
    functions: list[Function]     # the FUNC table, in order
    map_slots: list[MapVariable]      # one per map variable number
    map_values_given: bool        # some scalar map variable had an initializer (acc then considers MINI)
    imports: list[str]            # libraries to load (LOAD), by lump name
    library: str | None = None    # this object's #library name
    compact: bool = True
    wadauthor: bool = True
    encrypt_strings: bool = False
    string_constants: set = field(default_factory=set)  # a library's #defines of strings (pushed tagged)
    target: str = "vizdoom"       # the engine target the program was checked for
    hexen_case: bool = False      # acc's -h: a switch dispatches with CASEGOTO, one per case, last case first


# Statements that cannot hold a case label (only compound, if, loop and switch statements nest others).
_HOLDS_NO_CASE = frozenset((ast.Empty, ast.VarDecl, ast.Assign, ast.IncDecStatement, ast.StatementList,
                            ast.ExprStatement, ast.Print, ast.HudMessage, ast.ExecuteWait, ast.Jump, ast.Return,
                            ast.CreateTranslation))

_KIND_WORDS = {"special": "line special", "internal": "built-in function", "callfunc": "built-in function",
               "constant": "constant"}


def _describe(sym) -> str:
    if isinstance(sym, (Variable, Function)):
        return sym.describe()
    if isinstance(sym, _Pending):
        return sym.template.describe()
    return _KIND_WORDS.get(sym.kind, "built-in name")


class _Pending:
    """A library's function or map variable that acc registers in this object only when a name mentions it
    (and again after each later #import): ``template`` is what it declared."""

    __slots__ = ("template",)

    def __init__(self, template):
        self.template = template


class _Body:
    """State of the script or function being checked."""

    def __init__(self, node, function: Function | None):
        self.node = node
        self.function = function
        self.locals: dict[str, Variable] = {}
        self.var_count = 0
        self.array_sizes: list[int] = []
        self.breakable = 0  # loops and switches around the current statement
        self.loops = 0
        self.switches: list[set] = []  # case values of each switch around the statement


def check(program: ast.Program, target: str = "vizdoom", hexen: bool = False) -> Findings:
    """Check a parsed program for an engine ``target`` (builtins.TARGETS); raises AcsError at the first
    problem. ``hexen``: acc's -h, Hexen-compatible p-code (never compact; switches as CASEGOTO chains)."""
    checker = Checker(program.tokens, target)
    checker.compact = not hexen
    findings = checker.check(program)
    findings.hexen_case = hexen
    return findings


class Checker:
    """Walks the tree once, in source order (which is the order acc numbers things in), keeping the symbol
    tables: globals (#defines, map/world/global variables, functions, specials the file declares), the built-in
    headers included so far, the locals of the body being checked, and what imported libraries declared.
    ``check(program)`` returns the Findings.
    """

    def __init__(self, tokens: Tokens, target: str = "vizdoom"):
        self.tokens = tokens
        self.bi = bi.for_target(target)
        self.zdoom = target == "zdoom"  # acc's leniencies: whatever acc 1.58 compiles, for GZDoom or Zandronum
        self.facts: dict = {}
        self.globals: dict[str, object] = {}   # what the file (and its imports) declare
        self.headers: set[str] = set()
        self.names: dict[str, object] = self.bi.names(())  # globals and the built-ins in scope, merged
        self.strings: list[str] = []
        self.string_index: dict[str, int] = {}
        self.map_slots: list[MapVariable] = []
        self.map_values_given = False
        self.functions: list[Function] = []          # the FUNC table
        self.defined: dict[str, Function] = {}       # this file's functions, known before their definitions
        self.script_numbers: dict[int, tuple[Tokens, int]] = {}
        self.named_scripts: dict[str, int] = {}      # lower-cased name -> place in SNAM
        self.script_names: list[str] = []
        self.body: _Body | None = None
        self.compact = True
        self.wadauthor = True
        self.encrypt = False
        self.library: str | None = None
        self.imports: list[str] = []
        self.imported_paths: dict[str, int] = {}
        self.importing = False                       # reading an imported library's declarations
        self.imported_names: dict[str, object] = {}  # every function and map variable libraries declared
        self.pending: dict[str, _Pending] = {}       # those the next mention registers here
        self.seen_code = False
        self.saw_string = False                      # a string went into the constant just folded
        self.defining = False                        # folding a #define's value
        self.refused_by: bi.Unsupported | None = None  # a refused constant that went into that value
        self.refused_constants: dict[int, tuple] = {}  # id -> (#define's Constant, the Unsupported it came from)
        self.string_constants: set = set()

    # ---- tokens and messages -------------------------------------------------------------------

    def error(self, node, message: str):
        """An AcsError at ``node`` (or at token index ``node``)."""
        return self.tokens.error(node if type(node) is int else node.at, message)

    def text(self, node) -> str:
        """The node's token (or token index ``node``'s) as written."""
        return self.tokens.texts[node if type(node) is int else node.at]

    # ---- names ---------------------------------------------------------------------------------

    def intern(self, text: str) -> int:
        index = self.string_index.get(text)
        if index is None:
            index = len(self.strings)
            self.strings.append(text)
            self.string_index[text] = index
        return index

    def lookup(self, key: str, locals: bool = True):
        """What ``key`` names at this point, as acc sees it: globals and built-ins before locals."""
        sym = self.names.get(key)
        if sym is None:
            if locals and self.body is not None:
                sym = self.body.locals.get(key)
        elif type(sym) is _Pending and key in self.pending:
            sym = self.register(key)
        return sym

    def set_global(self, key: str, sym) -> None:
        self.globals[key] = self.names[key] = sym

    def register(self, key: str):
        """Give an imported function or map variable its place in this object, as acc does on mentioning it."""
        template = self.pending.pop(key).template
        if isinstance(template, Function):
            sym = Function(template.name, template.arg_count, template.returns)
            self.add_function(sym, None)
        else:
            index = self.new_map_slot(None, MapVariable(key, imported=True, size=math.prod(template.sizes)
                                                    if template.is_array else 0))
            sym = Variable(template.name, template.kind, index, template.sizes, imported=True)
        self.set_global(key, sym)
        return sym

    def mention(self, tokens: Tokens) -> None:
        """Register the pending names ``tokens`` mention, in order: acc's lexer looks every name up as it reads
        it, even in the parts of a library it skips."""
        if not self.pending:
            return
        pending = self.pending
        values = tokens.values
        for at, kind in enumerate(tokens.kinds):
            if kind == "ident" and values[at] in pending:
                self.register(values[at])

    def add_function(self, fn: Function, node) -> None:
        if len(self.functions) >= MAX_FUNCTIONS:
            raise self.error(node if node is not None else 0, f"too many functions (at most {MAX_FUNCTIONS})")
        fn.number = len(self.functions)
        self.functions.append(fn)

    def new_map_slot(self, node, slot: MapVariable) -> int:
        if len(self.map_slots) >= MAX_MAP_VARIABLES:
            raise self.error(node if node is not None else 0,
                             f"too many map variables (at most {MAX_MAP_VARIABLES}, arrays included)")
        self.map_slots.append(slot)
        return len(self.map_slots) - 1

    def unknown(self, node, what: str, want_call: bool = False):
        """An error for a name that is not defined, with the best hint available."""
        key = self.tokens.values[node.at]
        text = self.text(node)
        entry = self.bi.unsupported.get(key)
        if entry is not None and (entry.header is None or entry.header in self.headers):
            return self.error(node, entry.message)
        header = self.bi.header_of(key)
        if header is not None and header not in self.headers:
            own = self.own_header(header)
            if own is not None:
                return self.error(node, f"unknown {what} '{text}': {own!r}, read in place of wadgym's "
                                        f"built-in {header} (as acc reads the first it finds), does not declare it")
            return self.error(node, f"unknown {what} '{text}': it is declared in {header}; add "
                                    f"#include \"zcommon.acs\" at the top")
        if entry is not None:
            return self.error(node, entry.message)
        suggestion = self.suggest(key, want_call)
        if suggestion is None:
            import difflib

            hidden = difflib.get_close_matches(key, [*self.bi.specials, *self.bi.callfuncs, *self.bi.constants],
                                               n=1, cutoff=0.75)
            if (hidden and self.bi.header_of(hidden[0]) not in self.headers
                    and self.own_header(self.bi.header_of(hidden[0])) is None):
                name = self.bi.resolve(hidden[0], (bi.ZSPECIAL, bi.ZDEFS)).name
                return self.error(node, f"unknown {what} '{text}' (did you mean '{name}'? it needs "
                                        f"#include \"zcommon.acs\")")
        hint = f" (did you mean '{suggestion}'?)" if suggestion else ""
        return self.error(node, f"unknown {what} '{text}'{hint}")

    def own_header(self, header: str) -> str | None:
        """The path of a file named ``header`` (zspecial.acs, zdefs.acs) that the program read from disk in
        place of wadgym's built-in copy, or None (only asked on the error path)."""
        for _first, source, _local in self.tokens.segments:
            name = source.name
            if name.replace("\\", "/").rsplit("/", 1)[-1].lower() == header:
                return name
        return None

    def suggest(self, key: str, want_call: bool) -> str | None:
        candidates: dict[str, str] = {}
        for sym_key, sym in self.globals.items():
            if isinstance(sym, _Pending):
                sym = sym.template
            if want_call == isinstance(sym, Function) or not want_call:
                candidates[sym_key] = getattr(sym, "name", sym_key)
        for fn_key, fn in self.defined.items():
            candidates[fn_key] = fn.name
        for entry in self.bi.internals.values():
            candidates[entry.name.lower()] = entry.name
        if bi.ZSPECIAL in self.headers:
            for table in (self.bi.specials, self.bi.callfuncs):
                for entry in table.values():
                    candidates[entry.name.lower()] = entry.name
        if bi.ZDEFS in self.headers and not want_call:
            candidates.update((key, entry.name) for key, entry in self.bi.constants.items())
        if self.body is not None and not want_call:
            for local_key, var in self.body.locals.items():
                candidates[local_key] = var.name
        import difflib  # only on the error path

        match = difflib.get_close_matches(key, list(candidates), n=1, cutoff=0.7)
        return candidates[match[0]] if match else None

    def declare_global(self, node, key: str, sym) -> None:
        existing = self.lookup(key, locals=False)
        if existing is not None:
            raise self.error(node, f"'{self.text(node)}' is already defined (as a {_describe(existing)})")
        self.set_global(key, sym)

    def declare_local(self, node, key: str, sym: Variable) -> None:
        existing = self.names.get(key)
        if existing is not None:
            existing = self.lookup(key, locals=False)
            raise self.error(node, f"'{self.text(node)}' is already defined globally (as a {_describe(existing)}); "
                                   "a local cannot share its name")
        locals = self.body.locals
        if key in locals:
            raise self.error(node, f"'{self.text(node)}' is already declared in this "
                                   f"{'function' if self.body.function else 'script'} (ACS locals are not "
                                   "block-scoped)")
        locals[key] = sym

    # ---- constant expressions ------------------------------------------------------------------

    def constant(self, expr: ast.Expr, what: str = "a constant") -> int:
        """Fold a constant expression with acc's 32-bit C arithmetic. A string in it is interned (but reads
        as 0 in a library being imported, as acc has it) and sets ``saw_string``."""
        kind = type(expr)
        if kind is ast.Number:
            return expr.value
        if kind is ast.String:
            self.saw_string = True
            if self.importing:
                return 0
            index = self.facts[expr] = self.intern(expr.text)
            return index
        if kind is ast.Name:
            sym = self.lookup(expr.name)
            if type(sym) is bi.Constant:
                if self.refused_constants and id(sym) in self.refused_constants:
                    self.refused_constant(expr, sym)
                self.facts[expr] = sym
                if sym in self.string_constants:
                    self.saw_string = True
                return sym.value
            if sym is None:
                entry = self.bi.unsupported.get(expr.name) if self.defining else None
                if entry is not None and entry.category == "constant" and entry.header in self.headers:
                    self.refused_by = entry  # the #define is accepted; a use of it is refused
                    return entry.number
                raise self.unknown(expr, "constant")
            raise self.error(expr, f"'{self.text(expr)}' is a {_describe(sym)}, but {what} must be a constant "
                                   "expression (numbers, strings and #define constants)")
        if kind is ast.Unary:
            value = self.constant(expr.operand, what)
            if expr.op == "-":
                return wrap32(-value)
            if expr.op == "!":
                return int(value == 0)
            return wrap32(~value)
        if kind is ast.Binary:
            first, links = ast.binary_chain(expr)
            value = self.constant(first, what)
            for link in links:
                value = _fold(self, link, value, self.constant(link.right, what))
            return value
        if kind is ast.Ternary:
            cond = self.constant(expr.cond, what)
            then = self.constant(expr.then, what)
            other = self.constant(expr.other, what)
            return then if cond else other
        raise self.error(expr, f"{what} must be a constant expression (numbers, strings and #define constants)")

    def refused_constant(self, node, constant: bi.Constant) -> None:
        """A #define whose value came from a constant this target refuses: while another #define is folded it
        passes the refusal on; anywhere else its use is refused with the reason."""
        entry = self.refused_constants[id(constant)][1]
        if self.defining:
            self.refused_by = entry
            return
        raise self.error(node, f"'{self.text(node)}' is #defined from '{entry.name}', which is not available in "
                               f"ViZDoom's engine: {entry.reason}")

    def fold(self, expr: ast.Expr, what: str) -> tuple[int, bool]:
        """(value, whether a string went into it) of a constant expression."""
        self.saw_string = False
        value = self.constant(expr, what)
        return value, self.saw_string

    # ---- program -------------------------------------------------------------------------------

    def check(self, program: ast.Program) -> Findings:
        self.collect_functions(program)
        handlers = self._TOP_LEVEL
        items = program.items
        for position, item in enumerate(items):
            if type(item) is ast.Directive and item.name == "library" and position:
                raise self.error(item, "#library must come before anything else (acc: the first line of the "
                                       "file, before any #include)")
            handlers[type(item)](self, item)
        return Findings(self.facts, self.strings, self.script_names, self.functions, self.map_slots,
                        self.map_values_given, self.imports, self.library, self.compact, self.wadauthor,
                        self.encrypt, self.string_constants, self.bi.target)

    def collect_functions(self, program: ast.Program) -> None:
        """This file's functions, so that a call may come before the definition."""
        for node in program.items:
            if type(node) is ast.FunctionDef:
                first = self.defined.get(node.name)
                if first is not None:
                    raise self.error(node, f"function '{self.text(node)}' is already defined "
                                           f"(line {self.tokens.line(first.node.at)})")
                self.defined[node.name] = Function(self.text(node), len(node.params), node.return_type != "void",
                                                   node)

    def directive(self, node: ast.Directive) -> None:
        name = node.name
        if name == "include":
            self.headers.update(bi.BUILTIN_INCLUDES[node.value])
            self.names = {**self.bi.names(self.headers), **self.globals}
        elif name == "library":
            self.library = node.value[:LIBRARY_NAME_LENGTH]
        elif name == "nocompact":
            if self.seen_code:
                raise self.error(node, "#nocompact must come before the first script or function")
            self.compact = False
        elif name in ("wadauthor", "nowadauthor"):
            self.wadauthor = name == "wadauthor"
        elif name == "encryptstrings":
            self.encrypt = True

    def define(self, node: ast.Define) -> None:
        """A #define (or #libdefine). One whose value comes from a constant this target refuses (a mod's header
        may define ``MY_COUNTER = APROP_Counter0`` and never use it) is accepted: its uses are refused."""
        self.defining, self.refused_by = True, None
        value, is_string = self.fold(node.value, f"the value of #define {self.text(node)}")
        self.defining = False
        constant = bi.Constant(self.text(node), value)
        self.declare_global(node, node.name, constant)
        if self.refused_by is not None:
            self.refused_constants[id(constant)] = (constant, self.refused_by)
        if is_string and self.library is not None and not self.importing:
            # In a library acc remembers the string itself, so each use pushes it tagged with the library.
            self.string_constants.add(constant)

    def special(self, node: ast.SpecialDef) -> None:
        """A ``special`` line, taken whole as acc 1.58 takes it (OuterSpecialDef checks nothing): a mod's
        zspecial.acs declares functions for other engines and end markers such as ``-100000:__EndOfList__(10)``
        that no script calls. What no call could encode (a number or an argument count out of range) is refused
        where a call uses it (``special_call``), never here."""
        text = self.text(node)
        low, high = node.min_args, node.max_args
        if high == 0:
            low = 0  # acc reads a special declared with no arguments as taking none, whatever its minimum
        if node.number >= 0:
            sym = bi.Special(text, node.number, low, high)
        else:
            sym = bi.CallFunc(text, -node.number, low, high)
        self.declare_global(node, node.name, sym)

    def world_declaration(self, node: ast.WorldVarDecl) -> None:
        limit = MAX_GLOBAL_VARIABLES if node.scope == "global" else MAX_WORLD_VARIABLES
        for var in node.variables:
            index = self.constant(var.index, f"a {node.scope} variable's number")
            if not 0 <= index < limit:
                raise self.error(var.index, f"{node.scope} variable number {index} is out of range (0..{limit - 1})")
            kind = node.scope + ("array" if var.is_array else "var")
            self.declare_global(var, var.name, Variable(self.text(var), kind, index,
                                                        [0x7FFFFFFF] if var.is_array else None))

    def map_declaration(self, node: ast.MapVarDecl) -> None:
        for decl in node.declarators:
            self.map_variable(decl, local=False)

    def map_variable(self, decl: ast.Declarator, local: bool) -> None:
        if self.importing:
            self.imported_variable(decl)
            return
        slot = MapVariable(None if local else decl.name)
        index = self.new_map_slot(decl, slot)
        if decl.dims is None:
            sym = Variable(self.text(decl), "mapvar", index)
            self._declare(decl, sym, local)
            if decl.init is not None:
                slot.value, slot.has_string = self.fold(decl.init, "a map variable's initial value")
                self.map_values_given = True
        else:
            sizes = self.array_sizes(decl)
            sym = Variable(self.text(decl), "maparray", index, sizes)
            slot.size = math.prod(sizes)
            self._declare(decl, sym, local)
            if decl.init is not None:
                slot.elements, slot.has_string = self.array_values(decl, sizes)
        self.facts[decl] = sym

    def imported_variable(self, decl: ast.Declarator) -> None:
        """A map variable of a library being imported: declared now, given a slot here when mentioned."""
        if decl.dims is None:
            template = Variable(self.text(decl), "mapvar", 0)
        else:
            sizes = self.array_sizes(decl)
            template = Variable(self.text(decl), "maparray", 0, sizes)
            if decl.init is not None:
                self.array_values(decl, sizes)  # checked, as acc reads it, then forgotten
        self.declare_global(decl, decl.name, _Pending(template))
        self.imported_names[decl.name] = template

    def _declare(self, node, sym, local: bool) -> None:
        if local:
            self.declare_local(node, node.name, sym)
        else:
            self.declare_global(node, node.name, sym)

    def array_sizes(self, decl: ast.Declarator) -> list[int]:
        sizes = []
        for dim in decl.dims:
            size = self.constant(dim, "an array size")
            if size <= 0:
                raise self.error(dim, f"array size must be positive, not {size}")
            sizes.append(size)
        total = math.prod(sizes)
        if total > 0x7FFFFFFF // 4:
            raise self.error(decl, f"array '{self.text(decl)}' is too large ({total} elements)")
        return sizes

    def array_values(self, decl: ast.Declarator, sizes: list[int]) -> tuple[dict[int, int], bool]:
        """Initial values of a map array by element offset (elements not listed start at 0), and whether a
        string was among them."""
        values: dict[int, int] = {}
        has_string = False
        for offset, item in self.initializer_elements(decl, sizes):
            values[offset], is_string = self.fold(item, "an array initializer")
            has_string |= is_string
        return values, has_string

    def initializer_elements(self, decl: ast.Declarator, sizes: list[int]) -> list[tuple[int, ast.Expr]]:
        """(element offset, expression) for each element a braced initializer sets, in source order."""
        placed: list[tuple[int, ast.Expr]] = []
        pending = [(decl.init, 0, 0)]
        while pending:
            init, level, base = pending.pop()
            stride = math.prod(sizes[level + 1:])
            if len(init.items) > sizes[level]:
                raise self.error(init.items[sizes[level]] or init,
                                 f"too many initializers for '{self.text(decl)}' (dimension {level + 1} holds "
                                 f"{sizes[level]})")
            nested = []
            for i, item in enumerate(init.items):
                if item is None:
                    continue
                at = base + i * stride
                if isinstance(item, ast.ArrayInit):
                    if level + 1 == len(sizes):
                        raise self.error(item, f"'{self.text(decl)}' has {len(sizes)} dimension"
                                               f"{'s' if len(sizes) > 1 else ''}; this brace goes one deeper")
                    nested.append((item, level + 1, at))
                else:
                    if level + 1 != len(sizes):
                        raise self.error(item, f"expected '{{' for dimension {level + 2} of '{self.text(decl)}'")
                    placed.append((at, item))
            pending.extend(reversed(nested))
        return placed

    # ---- libraries -----------------------------------------------------------------------------

    def library_import(self, node: ast.Import) -> None:
        """``#import``: the library's functions and map variables become known (registered here when
        mentioned), its #libdefines stay defined, its #defines end with it, and its name is loaded (LOAD)."""
        library = node.program
        name = self.text(node)[1:-1]
        first = self.imported_paths.get(node.path)
        if first is not None:
            raise self.error(node, f"{name!r} is already imported (line {self.tokens.line(first)})")
        self.imported_paths[node.path] = node.at
        items = library.items
        if not items or type(items[0]) is not ast.Directive or items[0].name != "library":
            late = next((item for item in items if type(item) is ast.Directive and item.name == "library"), None)
            if late is not None:
                raise library.tokens.error(late.at, "#library must come before anything else")
            raise self.error(node, f"{name!r} is not a library: a file that is #imported must start with a "
                                   "#library \"name\" line")
        if len(self.imports) >= MAX_IMPORTS:
            raise self.error(node, f"too many libraries imported (at most {MAX_IMPORTS})")
        self.mention(library.tokens)
        outer_tokens, self.tokens, self.importing = self.tokens, library.tokens, True
        self.imports.append(items[0].value[:LIBRARY_NAME_LENGTH])
        scoped = []
        for item in items[1:]:
            kind = type(item)
            if kind is ast.Directive:
                if item.name == "library":
                    raise self.error(item, "#library must come before anything else")
                continue  # #nocompact and the like are the importer's business
            if kind is ast.FunctionDef:
                self.imported_function(item)
            elif kind is ast.Define:
                self.define(item)
                if not item.exported:
                    scoped.append(item.name)
            else:
                self._TOP_LEVEL[kind](self, item)
        self.tokens, self.importing = outer_tokens, False
        for key in scoped:  # a #define of a library is its own; #libdefine is for its importers too
            del self.globals[key], self.names[key]
        for key, template in self.imported_names.items():  # acc registers them afresh at their next mention
            self.pending[key] = _Pending(template)
            self.set_global(key, self.pending[key])

    def imported_function(self, node: ast.FunctionDef) -> None:
        if len(node.params) > MAX_FUNCTION_PART:
            raise self.error(node.params[MAX_FUNCTION_PART], f"function '{self.text(node)}' takes more than "
                                                             f"{MAX_FUNCTION_PART} arguments")
        template = Function(self.text(node), len(node.params), node.return_type != "void")
        self.declare_global(node, node.name, _Pending(template))
        self.imported_names[node.name] = template

    # ---- scripts and functions -----------------------------------------------------------------

    def script(self, node: ast.ScriptDef) -> None:
        self.seen_code = True
        if node.name is not None:
            key = node.name.lower()
            if key in self.named_scripts:
                raise self.error(node, f'script "{node.name}" is already defined')
            self.named_scripts[key] = len(self.named_scripts)
            self.script_names.append(node.name)
            number = -1 - self.named_scripts[key]
        else:
            number = self.constant(node.number, "a script number")
            if number == 0 and not node.explicit_zero:
                raise self.error(node.number, "script 0 must be written <<0>> (ZDoom reserves it for special uses)")
            if not 0 <= number <= 32767:
                raise self.error(node.number, f"script number {number} is out of range (1..32767)")
            if number in self.script_numbers:
                tokens, at = self.script_numbers[number]
                raise self.error(node.number, f"script {number} is already defined (line {tokens.line(at)})")
            self.script_numbers[number] = (self.tokens, node.at)
        self.script_kind(node, number)
        self.body = _Body(node, None)
        for param in node.params:
            self.local_variable(param, "scriptvar")
        self.statement(node.body)
        self.facts[node] = ScriptLayout(number, self.body.var_count, self.body.array_sizes)
        self.body = None

    def script_kind(self, node: ast.ScriptDef, number: int) -> None:
        if node.kind in UNSUPPORTED_SCRIPT_TYPES and not self.zdoom:
            raise self.error(node, f"{node.kind.upper()} scripts are not supported by ViZDoom's engine "
                                   f"(it runs {', '.join(k.upper() for k in SCRIPT_TYPES if k != 'closed')})")
        if len(node.params) > MAX_SCRIPT_ARGS:
            raise self.error(node.params[MAX_SCRIPT_ARGS], f"a script takes at most {MAX_SCRIPT_ARGS} arguments")
        if node.kind == "disconnect":
            if len(node.params) != 1:
                raise self.error(node, "a DISCONNECT script takes exactly one argument (the player number)")
        elif node.kind == "event":
            if len(node.params) != 3:
                raise self.error(node, "an EVENT script takes exactly three arguments")
        elif node.kind != "closed" and node.params:
            raise self.error(node.params[0], f"{node.kind.upper()} scripts take no arguments")

    def function(self, node: ast.FunctionDef) -> None:
        self.seen_code = True
        fn = self.defined[node.name]
        self.declare_global(node, node.name, fn)
        self.body = _Body(node, fn)
        for param in node.params:
            self.local_variable(param, "scriptvar")
        for stmt in node.body:
            self.statement(stmt)
        if fn.returns and not _ends_flow(node.body):
            raise self.error(node.end, f"function '{fn.name}' must return a value here (it is declared "
                                       f"{node.return_type}, and control can reach its end)")
        fn.var_count = self.body.var_count
        fn.array_sizes = self.body.array_sizes
        self.body = None
        self.add_function(fn, node)
        self.facts[node] = fn

    def local_variable(self, node, kind: str, sizes: list[int] | None = None) -> Variable:
        body = self.body
        if kind == "scriptarray":
            sym = Variable(self.text(node), kind, len(body.array_sizes), sizes)
            body.array_sizes.append(math.prod(sizes))
            if len(body.array_sizes) > 254:
                raise self.error(node, "too many local arrays (at most 254)")
        else:
            sym = Variable(self.text(node), kind, body.var_count)
            body.var_count += 1
            if body.var_count > MAX_FUNCTION_PART:  # below that every limit check_slots knows is met
                self.check_slots(node, body)
        self.declare_local(node, node.name, sym)
        return sym

    def check_slots(self, node, body: _Body) -> None:
        """Refuse the variable at ``node`` when its number no longer fits the operand or the object's tables."""
        count = body.var_count
        fn = body.function
        if fn is not None and MAX_FUNCTION_PART < count <= fn.arg_count:
            raise self.error(node, f"function '{fn.name}' takes more than {MAX_FUNCTION_PART} arguments (the FUNC "
                                   "table holds the count in one byte)")
        if self.compact and count > COMPACT_SLOTS:
            if fn is None:
                what = f"{self.script_label(body.node)} has {count} variables"
            else:
                what = (f"function '{fn.name}' has {count} variables ({fn.arg_count} arguments and "
                        f"{count - fn.arg_count} locals)")
            raise self.error(node, f"{what}; compact p-code numbers them in one byte, so at most {COMPACT_SLOTS} "
                                   "(use fewer, or #nocompact)")
        if fn is None:
            if count > MAX_SCRIPT_SLOTS:
                raise self.error(node, f"{self.script_label(body.node)} has {count} variables; the SVCT table "
                                       f"holds at most {MAX_SCRIPT_SLOTS}")
        elif count > fn.arg_count + MAX_FUNCTION_PART:
            raise self.error(node, f"function '{fn.name}' has {count - fn.arg_count} locals; the FUNC table holds "
                                   f"at most {MAX_FUNCTION_PART}")

    def script_label(self, node: ast.ScriptDef) -> str:
        if node.name is not None:
            return f'script "{node.name}"'
        return f"script {self.constant(node.number)}"

    # ---- statements ----------------------------------------------------------------------------

    def statement(self, node: ast.Stmt) -> None:
        self._STATEMENTS[type(node)](self, node)

    def compound(self, node: ast.Compound) -> None:
        statements = self._STATEMENTS
        for stmt in node.body:
            statements[type(stmt)](self, stmt)

    def nothing(self, node) -> None:
        pass

    def var_decl(self, node: ast.VarDecl) -> None:
        for decl in node.declarators:
            if node.static:
                self.map_variable(decl, local=True)
                continue
            if decl.dims is None:
                self.facts[decl] = self.local_variable(decl, "scriptvar")
                if decl.init is not None:
                    self.expr(decl.init)
                continue
            sizes = self.array_sizes(decl)
            sym = self.local_variable(decl, "scriptarray", sizes)
            if decl.init is None:
                self.facts[decl] = sym
            else:
                self.facts[decl] = (sym, self.local_array_values(decl, sizes))

    def local_array_values(self, decl: ast.Declarator, sizes: list[int]) -> list[tuple[int, ast.Expr]]:
        """(element offset, expression) for each initialized element, in source order."""
        placed = self.initializer_elements(decl, sizes)
        for _, item in placed:
            self.expr(item)
        return placed

    def assign(self, node: ast.Assign) -> None:
        self.target(node.target)
        self.expr(node.value)

    def incdec_statement(self, node: ast.IncDecStatement) -> None:
        self.target(node.target)

    def statement_list(self, node: ast.StatementList) -> None:
        for item in node.items:
            self.statement(item)

    def expr_statement(self, node: ast.ExprStatement) -> None:
        self.expr(node.expr, value_used=False)

    def print_statement(self, node: ast.Print) -> None:
        self.print_items(node.items)

    def hudmessage(self, node: ast.HudMessage) -> None:
        self.print_items(node.items)
        for arg in node.args:
            if type(arg) is not ast.Number:
                self.expr(arg)

    def execute_wait(self, node: ast.ExecuteWait) -> None:
        call = node.call
        if self.body.function is not None:
            raise self.error(node, f"{self.text(node)} waits, so it cannot be used inside a function "
                                   "(only in scripts)")
        if node.named:
            target = bi.CallFunc("ACS_NamedExecuteWait", self.bi.callfuncs["acs_namedexecute"].index, 1, 5)
        else:
            target = bi.Special("ACS_ExecuteWait", 80, 1, 5)
        if call.direct and node.named:
            raise self.error(node, "const: cannot be used with ACS_NamedExecuteWait")
        self.facts[call] = CallFacts(target, 0, self.call_args(call, target.min_args, target.max_args, call.direct,
                                                               target))

    def if_statement(self, node: ast.If) -> None:
        self.expr(node.cond)
        self.statement(node.then)
        if node.other is not None:
            self.statement(node.other)

    def loop(self, node) -> None:
        body = self.body
        kind = type(node)
        if kind is ast.For:
            if node.init is not None:
                self.statement(node.init)
            if node.cond is not None:
                self.expr(node.cond)
            if node.step is not None:
                self.statement(node.step)
        elif kind is ast.While:
            self.expr(node.cond)
        body.breakable += 1
        body.loops += 1
        saved_switches, body.switches = body.switches, []
        self.statement(node.body)
        body.switches = saved_switches
        body.breakable -= 1
        body.loops -= 1
        if kind is ast.DoWhile:
            self.expr(node.cond)

    def switch(self, node: ast.Switch) -> None:
        body = self.body
        self.expr(node.expr)
        body.breakable += 1
        body.switches.append(set())
        self._switch_body(node.body)
        body.switches.pop()
        body.breakable -= 1

    def _switch_body(self, node: ast.Stmt) -> None:
        # case labels belong to the switch only directly in its braces (acc's rule), nested braces included.
        if type(node) is ast.Compound:
            for stmt in node.body:
                self._switch_body(stmt)
        elif type(node) is ast.Case:
            self.case_label(node, allowed=True)
        elif type(node) in _HOLDS_NO_CASE:
            self.statement(node)
        else:
            saved, self.body.switches = self.body.switches, self.body.switches + [None]
            self.statement(node)
            self.body.switches = saved

    def case_label(self, node: ast.Case, allowed: bool = False) -> None:
        switches = self.body.switches
        if not allowed or not switches or switches[-1] is None:
            word = "default" if node.value is None else "case"
            raise self.error(node, f"'{word}' outside a switch (case labels must stand directly in the "
                                   "switch's braces)")
        seen = switches[-1]
        if node.value is None:
            if "default" in seen:
                raise self.error(node, "this switch already has a default")
            seen.add("default")
            return
        number = self.facts[node] = self.constant(node.value, "a case value")
        if number in seen:
            raise self.error(node.value, f"duplicate case value {number}")
        seen.add(number)

    def case_outside(self, node: ast.Case) -> None:
        self.case_label(node, allowed=False)

    def jump(self, node: ast.Jump) -> None:
        body = self.body
        kind = node.kind
        if kind == "break" and body.breakable == 0:
            raise self.error(node, "'break' outside a loop or switch")
        if kind == "continue" and body.loops == 0:
            raise self.error(node, "'continue' outside a loop")
        if kind in ("restart", "terminate", "suspend") and body.function is not None:
            raise self.error(node, f"'{kind}' cannot be used inside a function (only in scripts)")

    def return_statement(self, node: ast.Return) -> None:
        fn = self.body.function
        if fn is None:
            raise self.error(node, "'return' outside a function (use 'terminate' to end a script)")
        if node.value is None and fn.returns:
            raise self.error(node, f"function '{fn.name}' must return a value")
        if node.value is not None:
            if not fn.returns:
                raise self.error(node.value, f"function '{fn.name}' is void and cannot return a value")
            self.expr(node.value)

    def create_translation(self, node: ast.CreateTranslation) -> None:
        self.expr(node.number)
        for item in node.ranges:
            if item.kind in ("colourise", "tint") and not self.zdoom:
                raise self.error(item, "colourised (#) and tinted (@) translation ranges are not supported by "
                                       "ViZDoom's engine (TRANSLATIONRANGE4/5 came after it)")
            for operand in item.operands:
                self.expr(operand)

    _STATEMENTS = {
        ast.Compound: compound, ast.Empty: nothing, ast.VarDecl: var_decl, ast.Assign: assign,
        ast.IncDecStatement: incdec_statement, ast.StatementList: statement_list,
        ast.ExprStatement: expr_statement, ast.Print: print_statement, ast.HudMessage: hudmessage,
        ast.ExecuteWait: execute_wait, ast.If: if_statement, ast.While: loop, ast.DoWhile: loop,
        ast.For: loop, ast.Switch: switch, ast.Case: case_outside, ast.Jump: jump,
        ast.Return: return_statement, ast.CreateTranslation: create_translation,
    }
    _TOP_LEVEL = {
        ast.ScriptDef: script, ast.FunctionDef: function, ast.MapVarDecl: map_declaration,
        ast.WorldVarDecl: world_declaration, ast.Define: define, ast.SpecialDef: special,
        ast.Directive: directive, ast.Import: library_import,
    }

    # ---- expressions ---------------------------------------------------------------------------

    def expr(self, node: ast.Expr, value_used: bool = True) -> None:
        kind = type(node)
        if kind is ast.Number:
            return
        if kind is ast.Name:  # the commonest case, inlined: a name that means a scalar variable
            key = node.name
            sym = self.names.get(key)
            if sym is None and self.body is not None:
                sym = self.body.locals.get(key)
            if type(sym) is Variable and not sym.is_array:
                self.facts[node] = sym
            else:
                self.name(node, value_used)
            return
        if kind is ast.Binary:
            left = node.left
            if type(left) is not ast.Binary:  # one operator (the commonest): no chain to gather
                if type(left) is not ast.Number:
                    self.expr(left)
                if type(node.right) is not ast.Number:
                    self.expr(node.right)
                return
            first, links = ast.binary_chain(node)
            self.expr(first)
            for link in links:  # source order, which is the string pool's order
                if type(link.right) is not ast.Number:
                    self.expr(link.right)
            return
        self._EXPRESSIONS[kind](self, node, value_used)

    def string(self, node: ast.String, value_used: bool) -> None:
        self.facts[node] = self.intern(node.text)

    def name(self, node: ast.Name, value_used: bool) -> None:
        sym = self.lookup(node.name)
        if sym is None:
            if node.name in self.defined:
                raise self.error(node, f"'{self.text(node)}' is a function; call it with ( )")
            raise self.unknown(node, "name")
        if type(sym) is Variable:
            if sym.is_array:
                raise self.error(node, f"'{self.text(node)}' is an array; index it with [ ]")
        elif isinstance(sym, (Function, bi.Internal, bi.CallFunc)):
            raise self.error(node, f"'{self.text(node)}' is a {_describe(sym)}; call it with ( )")
        elif self.refused_constants and id(sym) in self.refused_constants:
            self.refused_constant(node, sym)
        self.facts[node] = sym

    def array(self, base: ast.Name, what: str) -> Variable:
        """The array ``base`` names; ``what`` says what needs one, for the message."""
        sym = self.lookup(base.name)
        if sym is None:
            raise self.unknown(base, "array")
        if type(sym) is not Variable or not sym.is_array:
            raise self.error(base, f"'{self.text(base)}' is not an array{what.format(describe=_describe(sym))}")
        self.facts[base] = sym
        return sym

    def subscript(self, node: ast.Subscript, value_used: bool = True) -> None:
        sym = self.array(node.base, " (it is a {describe})")
        if len(node.indices) != sym.ndim:
            raise self.error(node, f"'{self.text(node.base)}' has {sym.ndim} dimension{'s' if sym.ndim > 1 else ''}; "
                                   f"{len(node.indices)} index{'es' if len(node.indices) != 1 else ''} given")
        for index in node.indices:
            self.expr(index)

    def target(self, node: ast.Expr) -> None:
        """Something assigned to or incremented: a variable or an array element."""
        if type(node) is ast.Subscript:
            self.subscript(node)
            return
        sym = self.lookup(node.name)
        if sym is None:
            raise self.unknown(node, "variable")
        if type(sym) is not Variable:
            raise self.error(node, f"cannot assign to '{self.text(node)}': it is a {_describe(sym)}")
        if sym.is_array:
            raise self.error(node, f"'{self.text(node)}' is an array; assign to an element with [ ]")
        self.facts[node] = sym

    def unary(self, node: ast.Unary, value_used: bool) -> None:
        self.expr(node.operand)

    def ternary(self, node: ast.Ternary, value_used: bool) -> None:
        self.expr(node.cond)
        self.expr(node.then)
        self.expr(node.other)

    def incdec(self, node: ast.IncDec, value_used: bool) -> None:
        self.target(node.target)

    def strparam(self, node: ast.StrParam, value_used: bool) -> None:
        self.print_items(node.items)

    def print_items(self, items: list[ast.PrintItem]) -> None:
        for item in items:
            if item.kind == "a":
                self.char_range(item.value)
            elif type(item.value) is not ast.Number:
                self.expr(item.value)

    def char_range(self, node: ast.CharRange) -> None:
        target = node.array
        is_element = type(target) is ast.Subscript
        base = target.base if is_element else target
        sym = self.array(base, "; a: prints or fills a character array")
        given = len(target.indices) if is_element else 0
        if given != sym.ndim - 1:
            raise self.error(target, f"a: takes '{self.text(base)}' with {sym.ndim - 1} index"
                                     f"{'es' if sym.ndim - 1 != 1 else ''} (all but the last dimension)")
        if is_element:
            for index in target.indices:
                self.expr(index)
        for part in (node.start, node.length):
            if part is not None:
                self.expr(part)

    def strcpy(self, node: ast.StrCpy, value_used: bool) -> None:
        self.char_range(node.dest)
        self.expr(node.source)
        if node.offset is not None:
            self.expr(node.offset)

    def morphactor(self, node: ast.MorphActor, value_used: bool) -> None:
        if len(node.args) > 7:
            raise self.error(node.args[7], "MorphActor takes at most 7 arguments")
        if not node.args or node.args[0] is None:
            raise self.error(node, "MorphActor needs at least the actor's tid")
        # acc pushes "" for an omitted class or flash name, entering it in the string pool right there.
        for i in range(7):
            arg = node.args[i] if i < len(node.args) else None
            if arg is not None:
                self.expr(arg)
            elif i in MORPH_STRING_ARGS:
                self.facts[node] = self.intern("")

    def call(self, node: ast.Call, value_used: bool) -> None:
        key = node.name
        sym = self.names.get(key)
        if sym is None or type(sym) is _Pending:
            sym = self.lookup(key)
        if sym is None:
            sym = self.defined.get(key)
            if sym is None:
                raise self.unknown(node, "function", want_call=True)
        kind = type(sym)
        if kind is Function:
            self.user_call(node, sym, value_used)
            self.facts[node] = CallFacts(sym)
        elif kind is bi.Internal:
            self.facts[node] = self.internal_call(node, sym, value_used)
        elif kind is bi.Special or kind is bi.CallFunc:
            self.facts[node] = self.special_call(node, sym, value_used)
        else:
            raise self.error(node, f"'{self.text(node)}' is a {_describe(sym)}, not a function")

    def user_call(self, node: ast.Call, fn: Function, value_used: bool) -> None:
        if node.direct:
            raise self.error(node, "const: only applies to built-in functions")
        if value_used and not fn.returns:
            raise self.error(node, f"function '{fn.name}' is void; it has no value to use")
        if any(arg is None for arg in node.args):
            raise self.error(node, f"missing argument in the call to '{fn.name}'")
        if len(node.args) != fn.arg_count:
            raise self.error(node, f"function '{fn.name}' takes {fn.arg_count} argument"
                                   f"{'s' if fn.arg_count != 1 else ''}, {len(node.args)} given")
        for arg in node.args:
            if type(arg) is not ast.Number:
                self.expr(arg)

    def internal_call(self, node: ast.Call, entry: bi.Internal, value_used: bool) -> CallFacts:
        if value_used and not entry.returns:
            raise self.error(node, f"{entry.name} returns no value")
        if entry.latent and self.body is not None and self.body.function is not None:
            raise self.error(node, f"{entry.name} waits, so it cannot be used inside a function (only in scripts)")
        if node.direct and entry.direct_pcode is None:
            raise self.error(node, f"{entry.name} has no const: form")
        count = entry.arg_count
        if len(node.args) > count:
            raise self.error(node, f"{entry.name} takes {_arg_range(entry.min_args, count)}, "
                                   f"{len(node.args)} given")
        values = []
        for i, arg in enumerate(node.args):
            if arg is None:
                if not entry.opt_mask >> i & 1:
                    raise self.error(node, f"argument {i + 1} of {entry.name} cannot be left out")
                values.append(0)
            elif node.direct:
                values.append(self.constant(arg, f"a const: argument of {entry.name}"))
            elif type(arg) is not ast.Number:
                self.expr(arg)
        filled = len(node.args)
        while filled < count and entry.opt_mask >> filled & 1:
            filled += 1
        if filled != count:
            raise self.error(node, f"{entry.name} takes {_arg_range(entry.min_args, count)}, "
                                   f"{len(node.args)} given")
        fills = count - len(node.args)
        return CallFacts(entry, fills, values + [0] * fills if node.direct else None)

    def special_call(self, node: ast.Call, entry, value_used: bool) -> CallFacts:
        is_special = type(entry) is bi.Special
        if node.direct and (value_used or not is_special):
            raise self.error(node, "const: applies only to line specials called as statements")
        self.encodable(node, entry)
        values = self.call_args(node, entry.min_args, entry.max_args, node.direct, entry)
        count = len(node.args)
        if is_special and count > MAX_SPECIAL_ARGS:
            raise self.error(node, f"{entry.name} is declared to take up to {entry.max_args} arguments, but a line "
                                   f"special takes at most {MAX_SPECIAL_ARGS} (LSPEC1..LSPEC5); {count} given")
        if not is_special and count > MAX_CALLFUNC_ARGS and self.compact:
            raise self.error(node, f"{entry.name} is given {count} arguments; compact p-code counts a CALLFUNC's "
                                   f"arguments in one byte, so at most {MAX_CALLFUNC_ARGS}")
        fills = 0 if is_special else max(0, self.bi.full_args.get(entry.index, 0) - count)
        return CallFacts(entry, fills, values)

    def encodable(self, node: ast.Call, entry) -> None:
        """Refuse a call to a special or CALLFUNC function whose declared number this target cannot encode (the
        declaration alone is accepted: see ``special``). The zdoom target writes acc's bytes for both."""
        if self.zdoom:
            return
        if type(entry) is bi.Special:
            if entry.number > MAX_SPECIAL_NUMBER:
                raise self.error(node, f"{entry.name} is line special {entry.number}, out of range for ViZDoom's "
                                       f"engine (0..{MAX_SPECIAL_NUMBER}: acc calls a higher number with LSPEC5EX, "
                                       "which the engine lacks)")
        elif entry.index > MAX_CALLFUNC_INDEX and self.compact:
            raise self.error(node, f"{entry.name} is CALLFUNC index {entry.index}, out of range (1.."
                                   f"{MAX_CALLFUNC_INDEX}: compact p-code stores the index as a signed 16-bit "
                                   "number, so the call would reach another function or none)")

    def call_args(self, node: ast.Call, low: int, high: int, direct: bool, entry) -> list[int] | None:
        """Check a special's or CALLFUNC function's arguments; their folded values for ``const:``."""
        name = entry.name
        if any(arg is None for arg in node.args):
            raise self.error(node, f"missing argument in the call to {name}")
        count = len(node.args)
        if low > high:
            raise self.error(node, f"{name} cannot be called: its declaration's minimum of {low} arguments is above "
                                   f"its maximum of {high}")
        if not low <= count <= high:
            note = ""
            acc_args = getattr(entry, "acc_args", None)
            if acc_args is not None and high < count <= acc_args[1]:
                note = f" (acc would accept up to {acc_args[1]}, but ViZDoom's engine reads only {high})"
            raise self.error(node, f"{name} takes {_arg_range(low, high)}, {count} given{note}")
        if direct:
            return [self.constant(arg, f"a const: argument of {name}") for arg in node.args]
        for arg in node.args:
            if type(arg) is not ast.Number:
                self.expr(arg)
        return None

    _EXPRESSIONS = {
        ast.String: string, ast.Name: name, ast.Subscript: subscript, ast.Unary: unary,
        ast.Ternary: ternary, ast.IncDec: incdec, ast.Call: call, ast.StrParam: strparam,
        ast.StrCpy: strcpy, ast.MorphActor: morphactor,
    }


def _arg_range(low: int, high: int) -> str:
    if low == high:
        return f"{low} argument{'s' if low != 1 else ''}"
    return f"{low} to {high} arguments"


def _fold(checker: Checker, node: ast.Binary, a: int, b: int) -> int:
    op = node.op
    if op == "+":
        return wrap32(a + b)
    if op == "-":
        return wrap32(a - b)
    if op == "*":
        return wrap32(a * b)
    if op in ("/", "%"):
        if b == 0:
            raise checker.error(node, "division by zero in a constant expression")
        quotient = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            quotient = -quotient
        return wrap32(quotient) if op == "/" else wrap32(a - quotient * b)
    if op == "<<":
        return wrap32(a << (b & 31))
    if op == ">>":
        return a >> (b & 31)
    return int({"==": a == b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b,
                "&&": bool(a and b), "||": bool(a or b)}[op]) if op not in ("&", "|", "^") else \
        wrap32({"&": a & b, "|": a | b, "^": a ^ b}[op])


def _ends_flow(body: list[ast.Stmt]) -> bool:
    """Whether control cannot run off the end of these statements (a conservative answer)."""
    return any(_ends(stmt) for stmt in body)


def _ends(stmt) -> bool:
    if isinstance(stmt, ast.Return):
        return True
    if isinstance(stmt, ast.Jump):
        return stmt.kind in ("terminate", "restart")
    if isinstance(stmt, ast.Compound):
        return _ends_flow(stmt.body)
    if isinstance(stmt, ast.If):
        return stmt.other is not None and _ends(stmt.then) and _ends(stmt.other)
    if isinstance(stmt, (ast.While, ast.For)):
        cond = stmt.cond
        forever = cond is None or (isinstance(cond, ast.Number) and (cond.value != 0) != getattr(stmt, "until", False))
        return forever and not _breaks(stmt.body)
    if isinstance(stmt, ast.DoWhile):
        cond = stmt.cond
        forever = isinstance(cond, ast.Number) and (cond.value != 0) != stmt.until
        return (forever or _ends(stmt.body)) and not _breaks(stmt.body)
    return False


def _breaks(stmt) -> bool:
    """Whether a break in ``stmt`` leaves the loop that holds it."""
    if isinstance(stmt, ast.Jump):
        return stmt.kind == "break"
    if isinstance(stmt, ast.Compound):
        return any(_breaks(s) for s in stmt.body)
    if isinstance(stmt, ast.If):
        return _breaks(stmt.then) or (stmt.other is not None and _breaks(stmt.other))
    return False  # a break inside a nested loop or switch leaves that one
