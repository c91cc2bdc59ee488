"""Semantic checks: resolves every name, numbers variables, functions and strings in acc's order, folds constants."""

from __future__ import annotations

import math

from . import ast
from . import builtins as bi
from .format import SCRIPT_TYPES, UNSUPPORTED_SCRIPT_TYPES
from .lexer import wrap32

MAX_MAP_VARIABLES = 128
MAX_WORLD_VARIABLES = 256
MAX_GLOBAL_VARIABLES = 64
MAX_SCRIPT_ARGS = 4
MAX_FUNCTIONS = 256  # a compact CALL names its function in one byte
MAX_CALLFUNC_INDEX = 32767  # CALLFUNC's index operand is a signed 16-bit number in compact code
COMPACT_SLOTS = 256  # compact p-code names a local variable in one byte
MAX_FUNCTION_PART = 255  # the FUNC chunk stores a function's argument and local counts in one byte each
MAX_SCRIPT_SLOTS = 0xFFFF  # SVCT stores a script's variable count in 16 bits

_ARRAY_KINDS = {"scriptarray", "maparray", "worldarray", "globalarray"}
MORPH_STRING_ARGS = (1, 2, 5, 6)  # MorphActor's class and flash names


class Variable:
    """A variable or array: ``kind`` scriptvar/mapvar/worldvar/globalvar or one of the *array kinds."""

    __slots__ = ("name", "kind", "index", "multipliers", "sizes")

    def __init__(self, name: str, kind: str, index: int, sizes: list[int] | None = None):
        self.name, self.kind, self.index = name, kind, index
        self.sizes = sizes or []
        # acc's per-dimension multipliers: the last is 1, each earlier one the product of the later sizes.
        self.multipliers = [1] * len(self.sizes)
        for i in range(len(self.sizes) - 2, -1, -1):
            self.multipliers[i] = wrap32(self.multipliers[i + 1] * self.sizes[i + 1])

    @property
    def is_array(self) -> bool:
        return self.kind in _ARRAY_KINDS

    @property
    def ndim(self) -> int:
        return max(1, len(self.sizes)) if self.is_array else 0

    def describe(self) -> str:
        scope = self.kind.replace("var", " variable").replace("array", " array")
        return scope.replace("script ", "local ")


class Function:
    """A function the script defines; ``number`` is its place among the definitions (acc's numbering)."""

    __slots__ = ("name", "node", "arg_count", "returns", "number")

    def __init__(self, node: ast.FunctionDef, number: int):
        self.name = node.tok.text
        self.node = node
        self.arg_count = len(node.params)
        self.returns = node.return_type != "void"
        self.number = number

    def describe(self) -> str:
        return "function"


_KIND_WORDS = {"special": "line special", "internal": "built-in function", "callfunc": "built-in function",
               "constant": "constant"}


def _describe(sym) -> str:
    if isinstance(sym, (Variable, Function)):
        return sym.describe()
    return _KIND_WORDS.get(sym.kind, "built-in name")


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


class Checker:
    def __init__(self, compact: bool = True):
        self.compact = compact  # the p-code encoding, which bounds how many locals a body can name
        self.globals: dict[str, object] = {}
        self.headers: set[str] = set()
        self.strings: list[str] = []
        self.string_index: dict[str, int] = {}
        self.map_var_count = 0
        self.functions: dict[str, Function] = {}
        self.script_numbers: dict[int, ast.ScriptDef] = {}
        self.named_scripts: dict[str, int] = {}  # lower-cased name -> place in SNAM
        self.script_names: list[str] = []
        self.body: _Body | None = None

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
        sym = self.globals.get(key)
        if sym is None:
            sym = bi.resolve(key, self.headers)
            if sym is None and locals and self.body is not None:
                sym = self.body.locals.get(key)
        return sym

    def unknown(self, tok, what: str, want_call: bool = False):
        """An error for a name that is not defined, with the best hint available."""
        key = tok.value
        text = tok.text
        entry = bi.UNSUPPORTED.get(key)
        if entry is not None and (entry.header is None or entry.header in self.headers):
            return tok.error(entry.message)
        header = _header_of(key)
        if header is not None and header not in self.headers:
            return tok.error(f"unknown {what} '{text}': it is declared in {header}; add "
                             f"#include \"zcommon.acs\" at the top")
        if entry is not None:
            return tok.error(entry.message)
        suggestion = self.suggest(key, want_call)
        if suggestion is None:
            import difflib

            hidden = difflib.get_close_matches(key, _HEADER_NAMES, n=1, cutoff=0.75)
            if hidden and _header_of(hidden[0]) not in self.headers:
                name = _display_name(hidden[0])
                return tok.error(f"unknown {what} '{text}' (did you mean '{name}'? it needs "
                                 f"#include \"zcommon.acs\")")
        hint = f" (did you mean '{suggestion}'?)" if suggestion else ""
        return tok.error(f"unknown {what} '{text}'{hint}")

    def suggest(self, key: str, want_call: bool) -> str | None:
        candidates: dict[str, str] = {}
        for sym_key, sym in self.globals.items():
            if want_call == isinstance(sym, Function) or not want_call:
                candidates[sym_key] = getattr(sym, "name", sym_key)
        for fn_key, fn in self.functions.items():
            candidates[fn_key] = fn.name
        for entry in bi.INTERNALS.values():
            candidates[entry.name.lower()] = entry.name
        if bi.ZSPECIAL in self.headers:
            for table in (bi.SPECIALS, bi.CALLFUNCS):
                for entry in table.values():
                    candidates[entry.name.lower()] = entry.name
        if bi.ZDEFS in self.headers and not want_call:
            candidates.update((key, entry.name) for key, entry in bi.CONSTANTS.items())
        if self.body is not None and not want_call:
            for local_key, var in self.body.locals.items():
                candidates[local_key] = var.name
        import difflib  # only on the error path

        match = difflib.get_close_matches(key, list(candidates), n=1, cutoff=0.7)
        return candidates[match[0]] if match else None

    def declare_global(self, tok, sym) -> None:
        existing = self.lookup(tok.value, locals=False)
        if existing is not None:
            raise tok.error(f"'{tok.text}' is already defined (as a {_describe(existing)})")
        self.globals[tok.value] = sym

    def declare_local(self, tok, sym: Variable) -> None:
        existing = self.lookup(tok.value, locals=False)
        if existing is not None:
            raise tok.error(f"'{tok.text}' is already defined globally (as a {_describe(existing)}); "
                            "a local cannot share its name")
        if tok.value in self.body.locals:
            raise tok.error(f"'{tok.text}' is already declared in this "
                            f"{'function' if self.body.function else 'script'} (ACS locals are not "
                            "block-scoped)")
        self.body.locals[tok.value] = sym

    # ---- constant expressions ------------------------------------------------------------------

    def constant(self, expr: ast.Expr, what: str = "a constant") -> int:
        """Fold a constant expression with acc's 32-bit C arithmetic."""
        if isinstance(expr, ast.Number):
            return expr.value
        if isinstance(expr, ast.String):
            expr.index = self.intern(expr.text)
            return expr.index
        if isinstance(expr, ast.Name):
            sym = self.lookup(expr.name)
            if type(sym) is bi.Constant:
                expr.sym = sym
                return sym.value
            if sym is None:
                raise self.unknown(expr.tok, "constant")
            raise expr.error(f"'{expr.tok.text}' is a {_describe(sym)}, but {what} must be a constant "
                             "expression (numbers, strings and #define constants)")
        if isinstance(expr, ast.Unary):
            value = self.constant(expr.operand, what)
            if expr.op == "-":
                return wrap32(-value)
            if expr.op == "!":
                return int(value == 0)
            return wrap32(~value)
        if isinstance(expr, ast.Binary):
            return self._fold_binary(expr, what)
        if isinstance(expr, ast.Ternary):
            cond = self.constant(expr.cond, what)
            then = self.constant(expr.then, what)
            other = self.constant(expr.other, what)
            return then if cond else other
        raise expr.error(f"{what} must be a constant expression (numbers, strings and #define constants)")

    def _fold_binary(self, expr: ast.Binary, what: str) -> int:
        first, links = ast.binary_chain(expr)
        value = self.constant(first, what)
        for link in links:
            value = _fold(link, value, self.constant(link.right, what))
        return value

    # ---- program -------------------------------------------------------------------------------

    def check(self, program: ast.Program) -> None:
        definitions = [item for item in program.items if isinstance(item, ast.FunctionDef)]
        if len(definitions) > MAX_FUNCTIONS:
            raise definitions[MAX_FUNCTIONS].error(f"too many functions (at most {MAX_FUNCTIONS})")
        for number, node in enumerate(definitions):
            if node.name in self.functions:
                first = self.functions[node.name].node
                raise node.error(f"function '{node.tok.text}' is already defined (line {first.line()})")
            self.functions[node.name] = node.sym = Function(node, number)
        handlers = {
            ast.ScriptDef: self.script, ast.FunctionDef: self.function, ast.MapVarDecl: self.map_declaration,
            ast.WorldVarDecl: self.world_declaration, ast.Define: self.define, ast.SpecialDef: self.special,
            ast.Directive: self.directive,
        }
        for item in program.items:
            handlers[type(item)](item)

    def directive(self, node: ast.Directive) -> None:
        if node.name == "include":
            self.headers.update(bi.BUILTIN_INCLUDES[node.value])

    def define(self, node: ast.Define) -> None:
        value = self.constant(node.value, f"the value of #define {node.tok.text}")
        self.declare_global(node.tok, bi.Constant(node.tok.text, value))

    def special(self, node: ast.SpecialDef) -> None:
        if node.min_args > node.max_args:
            raise node.error(f"special '{node.tok.text}': minimum argument count above the maximum")
        if node.number >= 0:
            if node.max_args > 5:
                raise node.error(f"line specials take at most 5 arguments ('{node.tok.text}' declares "
                                 f"{node.max_args})")
            if node.number > 255:
                raise node.error(f"special number {node.number} is out of range (line specials are 0..255)")
            sym = bi.Special(node.tok.text, node.number, node.min_args, node.max_args)
        else:
            if -node.number > MAX_CALLFUNC_INDEX:
                raise node.error(f"CALLFUNC index {-node.number} is out of range (1..{MAX_CALLFUNC_INDEX}: the "
                                 "engine reads it as a signed 16-bit number)")
            if node.max_args > 255:
                raise node.error(f"function '{node.tok.text}' takes at most 255 arguments "
                                 "(the count is one byte)")
            sym = bi.CallFunc(node.tok.text, -node.number, node.min_args, node.max_args)
        self.declare_global(node.tok, sym)

    def world_declaration(self, node: ast.WorldVarDecl) -> None:
        limit = MAX_GLOBAL_VARIABLES if node.scope == "global" else MAX_WORLD_VARIABLES
        for var in node.variables:
            index = self.constant(var.index, f"a {node.scope} variable's number")
            if not 0 <= index < limit:
                raise var.index.error(f"{node.scope} variable number {index} is out of range (0..{limit - 1})")
            kind = node.scope + ("array" if var.is_array else "var")
            var.sym = Variable(var.tok.text, kind, index, [0x7FFFFFFF] if var.is_array else None)
            self.declare_global(var.tok, var.sym)

    def map_declaration(self, node: ast.MapVarDecl) -> None:
        for decl in node.declarators:
            self.map_variable(decl, local=False)

    def map_variable(self, decl: ast.Declarator, local: bool) -> None:
        if self.map_var_count >= MAX_MAP_VARIABLES:
            raise decl.error(f"too many map variables (at most {MAX_MAP_VARIABLES}, arrays included)")
        index = self.map_var_count
        self.map_var_count += 1
        if decl.dims is None:
            sym = Variable(decl.tok.text, "mapvar", index)
            self._declare(decl.tok, sym, local)
            if decl.init is not None:
                decl.values = [self.constant(decl.init, "a map variable's initial value")]
        else:
            sizes = self.array_sizes(decl)
            sym = Variable(decl.tok.text, "maparray", index, sizes)
            self._declare(decl.tok, sym, local)
            if decl.init is not None:
                decl.values = self.array_values(decl, sizes)
        decl.sym = sym

    def _declare(self, tok, sym, local: bool) -> None:
        if local:
            self.declare_local(tok, sym)
        else:
            self.declare_global(tok, sym)

    def array_sizes(self, decl: ast.Declarator) -> list[int]:
        sizes = []
        for dim in decl.dims:
            size = self.constant(dim, "an array size")
            if size <= 0:
                raise dim.error(f"array size must be positive, not {size}")
            sizes.append(size)
        total = math.prod(sizes)
        if total > 0x7FFFFFFF // 4:
            raise decl.error(f"array '{decl.tok.text}' is too large ({total} elements)")
        decl.sizes = sizes
        return sizes

    def array_values(self, decl: ast.Declarator, sizes: list[int]) -> dict[int, int]:
        """Initial values of a map array by element offset (elements not listed start at 0)."""
        values: dict[int, int] = {}
        for offset, item in self.initializer_elements(decl, sizes):
            values[offset] = self.constant(item, "an array initializer")
        return values

    def initializer_elements(self, decl: ast.Declarator, sizes: list[int]) -> list[tuple[int, ast.Expr]]:
        """(element offset, expression) for each element a braced initializer sets, in source order."""
        placed: list[tuple[int, ast.Expr]] = []
        pending = [(decl.init, 0, 0)]
        while pending:
            init, level, base = pending.pop()
            stride = math.prod(sizes[level + 1:])
            if len(init.items) > sizes[level]:
                raise init.items[sizes[level]].error(
                    f"too many initializers for '{decl.tok.text}' (dimension {level + 1} holds {sizes[level]})")
            nested = []
            for i, item in enumerate(init.items):
                if item is None:
                    continue
                at = base + i * stride
                if isinstance(item, ast.ArrayInit):
                    if level + 1 == len(sizes):
                        raise item.error(f"'{decl.tok.text}' has {len(sizes)} dimension"
                                         f"{'s' if len(sizes) > 1 else ''}; this brace goes one deeper")
                    nested.append((item, level + 1, at))
                else:
                    if level + 1 != len(sizes):
                        raise item.error(f"expected '{{' for dimension {level + 2} of '{decl.tok.text}'")
                    placed.append((at, item))
            pending.extend(reversed(nested))
        return placed

    # ---- scripts and functions -----------------------------------------------------------------

    def script(self, node: ast.ScriptDef) -> None:
        if node.name is not None:
            key = node.name.lower()
            if key in self.named_scripts:
                raise node.error(f'script "{node.name}" is already defined')
            self.named_scripts[key] = len(self.named_scripts)
            self.script_names.append(node.name)
            node.script_number = -1 - self.named_scripts[key]
        else:
            number = self.constant(node.number, "a script number")
            if number == 0 and not node.explicit_zero:
                raise node.number.error("script 0 must be written <<0>> (ZDoom reserves it for special uses)")
            if not 0 <= number <= 32767:
                raise node.number.error(f"script number {number} is out of range (1..32767)")
            if number in self.script_numbers:
                first = self.script_numbers[number]
                raise node.number.error(f"script {number} is already defined (line {first.line()})")
            self.script_numbers[number] = node
            node.script_number = number
        self.script_kind(node)
        self.body = _Body(node, None)
        for param in node.params:
            self.local_variable(param.tok, "scriptvar")
        self.statement(node.body)
        node.var_count = self.body.var_count
        node.array_sizes = self.body.array_sizes
        self.body = None

    def script_kind(self, node: ast.ScriptDef) -> None:
        if node.kind in UNSUPPORTED_SCRIPT_TYPES:
            raise node.error(f"{node.kind.upper()} scripts are not supported by ViZDoom's engine "
                             f"(it runs {', '.join(k.upper() for k in SCRIPT_TYPES if k != 'closed')})")
        if len(node.params) > MAX_SCRIPT_ARGS:
            raise node.params[MAX_SCRIPT_ARGS].error(f"a script takes at most {MAX_SCRIPT_ARGS} arguments")
        if node.kind == "disconnect":
            if len(node.params) != 1:
                raise node.error("a DISCONNECT script takes exactly one argument (the player number)")
        elif node.kind != "closed" and node.params:
            raise node.params[0].error(f"{node.kind.upper()} scripts take no arguments")

    def function(self, node: ast.FunctionDef) -> None:
        fn = node.sym
        self.declare_global(node.tok, fn)
        self.body = _Body(node, fn)
        for param in node.params:
            self.local_variable(param.tok, "scriptvar")
        for stmt in node.body:
            self.statement(stmt)
        if fn.returns and not _ends_flow(node.body):
            raise node.end_tok.error(f"function '{fn.name}' must return a value here (it is declared "
                                     f"{node.return_type}, and control can reach its end)")
        node.var_count = self.body.var_count
        node.array_sizes = self.body.array_sizes
        self.body = None

    def local_variable(self, tok, kind: str, sizes: list[int] | None = None) -> Variable:
        body = self.body
        if kind == "scriptarray":
            sym = Variable(tok.text, kind, len(body.array_sizes), sizes)
            body.array_sizes.append(math.prod(sizes))
            if len(body.array_sizes) > 254:
                raise tok.error("too many local arrays (at most 254)")
        else:
            sym = Variable(tok.text, kind, body.var_count)
            body.var_count += 1
            self.check_slots(tok, body)
        self.declare_local(tok, sym)
        return sym

    def check_slots(self, tok, body: _Body) -> None:
        """Refuse the variable at ``tok`` when its number no longer fits the operand or the object's tables."""
        count = body.var_count
        fn = body.function
        if fn is not None and MAX_FUNCTION_PART < count <= fn.arg_count:
            raise tok.error(f"function '{fn.name}' takes more than {MAX_FUNCTION_PART} arguments (the FUNC table "
                            "holds the count in one byte)")
        if self.compact and count > COMPACT_SLOTS:
            if fn is None:
                what = f"{_script_label(body.node)} has {count} variables"
            else:
                what = (f"function '{fn.name}' has {count} variables ({fn.arg_count} arguments and "
                        f"{count - fn.arg_count} locals)")
            raise tok.error(f"{what}; compact p-code numbers them in one byte, so at most {COMPACT_SLOTS} "
                            "(use fewer, or #nocompact)")
        if fn is None:
            if count > MAX_SCRIPT_SLOTS:
                raise tok.error(f"{_script_label(body.node)} has {count} variables; the SVCT table holds at "
                                f"most {MAX_SCRIPT_SLOTS}")
        elif count > fn.arg_count + MAX_FUNCTION_PART:
            raise tok.error(f"function '{fn.name}' has {count - fn.arg_count} locals; the FUNC table holds at "
                            f"most {MAX_FUNCTION_PART}")

    # ---- statements ----------------------------------------------------------------------------

    def statement(self, node: ast.Stmt) -> None:
        self._STATEMENTS[type(node)](self, node)

    def compound(self, node: ast.Compound) -> None:
        for stmt in node.body:
            self.statement(stmt)

    def nothing(self, node) -> None:
        pass

    def var_decl(self, node: ast.VarDecl) -> None:
        for decl in node.declarators:
            if node.static:
                self.map_variable(decl, local=True)
                continue
            if decl.dims is None:
                decl.sym = self.local_variable(decl.tok, "scriptvar")
                if decl.init is not None:
                    self.expr(decl.init)
                continue
            sizes = self.array_sizes(decl)
            decl.sym = self.local_variable(decl.tok, "scriptarray", sizes)
            if decl.init is not None:
                decl.values = self.local_array_values(decl, sizes)

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
            self.expr(arg)

    def execute_wait(self, node: ast.ExecuteWait) -> None:
        call = node.call
        if self.body.function is not None:
            raise node.error(f"{node.tok.text} waits, so it cannot be used inside a function "
                             "(only in scripts)")
        if node.named:
            target = bi.CallFunc("ACS_NamedExecuteWait", bi.CALLFUNCS["acs_namedexecute"].index, 1, 5)
        else:
            target = bi.Special("ACS_ExecuteWait", 80, 1, 5)
        call.target = target
        if call.direct and node.named:
            raise node.error("const: cannot be used with ACS_NamedExecuteWait")
        self.call_args(call, target.min_args, target.max_args, call.direct)

    def if_statement(self, node: ast.If) -> None:
        self.expr(node.cond)
        self.statement(node.then)
        if node.other is not None:
            self.statement(node.other)

    def loop(self, node) -> None:
        body = self.body
        if isinstance(node, ast.For):
            if node.init is not None:
                self.statement(node.init)
            if node.cond is not None:
                self.expr(node.cond)
            if node.step is not None:
                self.statement(node.step)
        elif isinstance(node, ast.While):
            self.expr(node.cond)
        body.breakable += 1
        body.loops += 1
        saved_switches, body.switches = body.switches, []
        self.statement(node.body)
        body.switches = saved_switches
        body.breakable -= 1
        body.loops -= 1
        if isinstance(node, ast.DoWhile):
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
        if isinstance(node, ast.Compound):
            for stmt in node.body:
                self._switch_body(stmt)
        elif isinstance(node, ast.Case):
            self.case_label(node, allowed=True)
        else:
            saved, self.body.switches = self.body.switches, self.body.switches + [None]
            self.statement(node)
            self.body.switches = saved

    def case_label(self, node: ast.Case, allowed: bool = False) -> None:
        switches = self.body.switches
        if not allowed or not switches or switches[-1] is None:
            word = "default" if node.value is None else "case"
            raise node.error(f"'{word}' outside a switch (case labels must stand directly in the "
                             "switch's braces)")
        seen = switches[-1]
        if node.value is None:
            if "default" in seen:
                raise node.error("this switch already has a default")
            seen.add("default")
            return
        node.number = self.constant(node.value, "a case value")
        if node.number in seen:
            raise node.value.error(f"duplicate case value {node.number}")
        seen.add(node.number)

    def case_outside(self, node: ast.Case) -> None:
        self.case_label(node, allowed=False)

    def jump(self, node: ast.Jump) -> None:
        body = self.body
        kind = node.kind
        if kind == "break" and body.breakable == 0:
            raise node.error("'break' outside a loop or switch")
        if kind == "continue" and body.loops == 0:
            raise node.error("'continue' outside a loop")
        if kind in ("restart", "terminate", "suspend") and body.function is not None:
            raise node.error(f"'{kind}' cannot be used inside a function (only in scripts)")

    def return_statement(self, node: ast.Return) -> None:
        fn = self.body.function
        if fn is None:
            raise node.error("'return' outside a function (use 'terminate' to end a script)")
        if node.value is None and fn.returns:
            raise node.error(f"function '{fn.name}' must return a value")
        if node.value is not None:
            if not fn.returns:
                raise node.value.error(f"function '{fn.name}' is void and cannot return a value")
            self.expr(node.value)

    def create_translation(self, node: ast.CreateTranslation) -> None:
        self.expr(node.number)
        for item in node.ranges:
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

    # ---- expressions ---------------------------------------------------------------------------

    def expr(self, node: ast.Expr, value_used: bool = True) -> None:
        kind = type(node)
        if kind is ast.Number:
            return
        if kind is ast.Binary:
            first, links = ast.binary_chain(node)
            self.expr(first)
            for link in links:  # source order, which is the string pool's order
                self.expr(link.right)
            return
        self._EXPRESSIONS[kind](self, node, value_used)

    def string(self, node: ast.String, value_used: bool) -> None:
        node.index = self.intern(node.text)

    def name(self, node: ast.Name, value_used: bool) -> None:
        sym = self.lookup(node.name)
        if sym is None:
            if node.name in self.functions:
                raise node.error(f"'{node.tok.text}' is a function; call it with ( )")
            raise self.unknown(node.tok, "name")
        if isinstance(sym, Variable):
            if sym.is_array:
                raise node.error(f"'{node.tok.text}' is an array; index it with [ ]")
        elif isinstance(sym, (Function, bi.Internal, bi.CallFunc)):
            raise node.error(f"'{node.tok.text}' is a {_describe(sym)}; call it with ( )")
        node.sym = sym

    def subscript(self, node: ast.Subscript, value_used: bool = True) -> None:
        base = node.base
        sym = self.lookup(base.name)
        if sym is None:
            raise self.unknown(base.tok, "array")
        if not isinstance(sym, Variable) or not sym.is_array:
            raise base.error(f"'{base.tok.text}' is not an array (it is a {_describe(sym)})")
        if len(node.indices) != sym.ndim:
            raise node.error(f"'{base.tok.text}' has {sym.ndim} dimension{'s' if sym.ndim > 1 else ''}; "
                             f"{len(node.indices)} index{'es' if len(node.indices) != 1 else ''} given")
        base.sym = sym
        for index in node.indices:
            self.expr(index)

    def target(self, node: ast.Expr) -> None:
        """Something assigned to or incremented: a variable or an array element."""
        if isinstance(node, ast.Subscript):
            self.subscript(node)
            return
        sym = self.lookup(node.name)
        if sym is None:
            raise self.unknown(node.tok, "variable")
        if not isinstance(sym, Variable):
            raise node.error(f"cannot assign to '{node.tok.text}': it is a {_describe(sym)}")
        if sym.is_array:
            raise node.error(f"'{node.tok.text}' is an array; assign to an element with [ ]")
        node.sym = sym

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
            else:
                self.expr(item.value)

    def char_range(self, node: ast.CharRange) -> None:
        target = node.array
        base = target.base if isinstance(target, ast.Subscript) else target
        sym = self.lookup(base.name)
        if sym is None:
            raise self.unknown(base.tok, "array")
        if not isinstance(sym, Variable) or not sym.is_array:
            raise base.error(f"'{base.tok.text}' is not an array; a: prints or fills a character array")
        given = len(target.indices) if isinstance(target, ast.Subscript) else 0
        if given != sym.ndim - 1:
            raise target.error(f"a: takes '{base.tok.text}' with {sym.ndim - 1} index"
                               f"{'es' if sym.ndim - 1 != 1 else ''} (all but the last dimension)")
        base.sym = sym
        if isinstance(target, ast.Subscript):
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
            raise node.args[7].error("MorphActor takes at most 7 arguments")
        if not node.args or node.args[0] is None:
            raise node.error("MorphActor needs at least the actor's tid")
        # acc pushes "" for an omitted class or flash name, entering it in the string pool right there.
        for i in range(7):
            arg = node.args[i] if i < len(node.args) else None
            if arg is not None:
                self.expr(arg)
            elif i in MORPH_STRING_ARGS:
                node.empty_index = self.intern("")

    def call(self, node: ast.Call, value_used: bool) -> None:
        key = node.name
        sym = self.lookup(key)
        if sym is None:
            fn = self.functions.get(key)
            if fn is None:
                raise self.unknown(node.tok, "function", want_call=True)
            sym = fn
        if isinstance(sym, Function):
            self.user_call(node, sym, value_used)
        elif isinstance(sym, bi.Internal):
            self.internal_call(node, sym, value_used)
        elif isinstance(sym, (bi.Special, bi.CallFunc)):
            self.special_call(node, sym, value_used)
        else:
            raise node.error(f"'{node.tok.text}' is a {_describe(sym)}, not a function")
        node.target = sym

    def user_call(self, node: ast.Call, fn: Function, value_used: bool) -> None:
        if node.direct:
            raise node.error("const: only applies to built-in functions")
        if value_used and not fn.returns:
            raise node.error(f"function '{fn.name}' is void; it has no value to use")
        if any(arg is None for arg in node.args):
            raise node.error(f"missing argument in the call to '{fn.name}'")
        if len(node.args) != fn.arg_count:
            raise node.error(f"function '{fn.name}' takes {fn.arg_count} argument"
                             f"{'s' if fn.arg_count != 1 else ''}, {len(node.args)} given")
        for arg in node.args:
            self.expr(arg)

    def internal_call(self, node: ast.Call, entry: bi.Internal, value_used: bool) -> None:
        if value_used and not entry.returns:
            raise node.error(f"{entry.name} returns no value")
        if entry.latent and self.body is not None and self.body.function is not None:
            raise node.error(f"{entry.name} waits, so it cannot be used inside a function (only in scripts)")
        if node.direct and entry.direct_pcode is None:
            raise node.error(f"{entry.name} has no const: form")
        count = entry.arg_count
        if len(node.args) > count:
            raise node.error(f"{entry.name} takes {_arg_range(entry.min_args, count)}, "
                             f"{len(node.args)} given")
        values = []
        for i, arg in enumerate(node.args):
            if arg is None:
                if not entry.opt_mask >> i & 1:
                    raise node.error(f"argument {i + 1} of {entry.name} cannot be left out")
                values.append(0)
            elif node.direct:
                values.append(self.constant(arg, f"a const: argument of {entry.name}"))
            else:
                self.expr(arg)
        filled = len(node.args)
        while filled < count and entry.opt_mask >> filled & 1:
            filled += 1
        if filled != count:
            raise node.error(f"{entry.name} takes {_arg_range(entry.min_args, count)}, "
                             f"{len(node.args)} given")
        node.fills = count - len(node.args)
        if node.direct:
            node.values = values + [0] * node.fills

    def special_call(self, node: ast.Call, entry, value_used: bool) -> None:
        is_special = isinstance(entry, bi.Special)
        if node.direct and (value_used or not is_special):
            raise node.error("const: applies only to line specials called as statements")
        self.call_args(node, entry.min_args, entry.max_args, node.direct, entry)
        if not is_special:
            node.fills = max(0, bi.CALLFUNC_FULL_ARGS.get(entry.index, 0) - len(node.args))

    def call_args(self, node: ast.Call, low: int, high: int, direct: bool, entry=None) -> None:
        name = entry.name if entry is not None else node.tok.text
        if any(arg is None for arg in node.args):
            raise node.error(f"missing argument in the call to {name}")
        count = len(node.args)
        if not low <= count <= high:
            note = ""
            acc_args = getattr(entry, "acc_args", None)
            if acc_args is not None and high < count <= acc_args[1]:
                note = f" (acc would accept up to {acc_args[1]}, but ViZDoom's engine reads only {high})"
            raise node.error(f"{name} takes {_arg_range(low, high)}, {count} given{note}")
        if direct:
            node.values = [self.constant(arg, f"a const: argument of {name}") for arg in node.args]
        else:
            for arg in node.args:
                self.expr(arg)

    _EXPRESSIONS = {
        ast.String: string, ast.Name: name, ast.Subscript: subscript, ast.Unary: unary,
        ast.Ternary: ternary, ast.IncDec: incdec, ast.Call: call, ast.StrParam: strparam,
        ast.StrCpy: strcpy, ast.MorphActor: morphactor,
    }


_HEADER_NAMES = [*bi.SPECIALS, *bi.CALLFUNCS, *bi.CONSTANTS]


def _header_of(key: str) -> str | None:
    """The built-in header that declares ``key``, for specials, CALLFUNC functions and constants."""
    if key in bi.SPECIALS or key in bi.CALLFUNCS:
        return bi.ZSPECIAL
    if key in bi.CONSTANTS:
        return bi.ZDEFS
    return None


def _display_name(key: str) -> str:
    entry = bi.resolve(key, (bi.ZSPECIAL, bi.ZDEFS))
    return entry.name if entry is not None else key


def _script_label(node: ast.ScriptDef) -> str:
    return f'script "{node.name}"' if node.name is not None else f"script {node.script_number}"


def _arg_range(low: int, high: int) -> str:
    if low == high:
        return f"{low} argument{'s' if low != 1 else ''}"
    return f"{low} to {high} arguments"


def _fold(node: ast.Binary, a: int, b: int) -> int:
    op = node.op
    if op == "+":
        return wrap32(a + b)
    if op == "-":
        return wrap32(a - b)
    if op == "*":
        return wrap32(a * b)
    if op in ("/", "%"):
        if b == 0:
            raise node.error("division by zero in a constant expression")
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
