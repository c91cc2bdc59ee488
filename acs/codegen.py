"""Code generation: walks the tree with the checker's findings and emits p-codes in the order and encoding acc
1.58 uses; ``generate(program, findings)`` returns the Module the object writer lays out."""

from __future__ import annotations

import struct

from . import ast
from . import builtins as bi
from .checks import MORPH_STRING_ARGS, Findings, Function, Variable
from .format import ACC_ONLY_SCRIPT_TYPES, SCRIPT_TYPES
from .objfile import FunctionInfo, Module, ScriptInfo
from .pcodes import COMPACT_SPLIT, OP

_pack_uint = struct.Struct("<I").pack
_pack_ushort = struct.Struct("<H").pack

_SCOPE_SUFFIX = {"scriptvar": "SCRIPTVAR", "mapvar": "MAPVAR", "worldvar": "WORLDVAR", "globalvar": "GLOBALVAR",
                 "scriptarray": "SCRIPTARRAY", "maparray": "MAPARRAY", "worldarray": "WORLDARRAY",
                 "globalarray": "GLOBALARRAY"}
_ASSIGN_PREFIX = {"=": "ASSIGN", "+=": "ADD", "-=": "SUB", "*=": "MUL", "/=": "DIV", "%=": "MOD", "&=": "AND",
                  "^=": "EOR", "|=": "OR", "<<=": "LS", ">>=": "RS", "++": "INC", "--": "DEC", "push": "PUSH"}
# (operator, variable kind) -> p-code, e.g. ("+=", "mapvar") -> ADDMAPVAR
VARIABLE_OPS = {(op, kind): getattr(OP, prefix + suffix)
                for op, prefix in _ASSIGN_PREFIX.items() for kind, suffix in _SCOPE_SUFFIX.items()}
PUSH_OPS = {kind: VARIABLE_OPS["push", kind] for kind in _SCOPE_SUFFIX}  # the commonest, by kind alone
BINARY_OPS = {"||": OP.ORLOGICAL, "&&": OP.ANDLOGICAL, "|": OP.ORBITWISE, "^": OP.EORBITWISE,
              "&": OP.ANDBITWISE, "==": OP.EQ, "!=": OP.NE, "<": OP.LT, "<=": OP.LE, ">": OP.GT,
              ">=": OP.GE, "<<": OP.LSHIFT, ">>": OP.RSHIFT, "+": OP.ADD, "-": OP.SUBTRACT,
              "*": OP.MULTIPLY, "/": OP.DIVIDE, "%": OP.MODULUS}
UNARY_OPS = {"-": OP.UNARYMINUS, "!": OP.NEGATELOGICAL, "~": OP.NEGATEBINARY}
PRINT_OPS = {"s": OP.PRINTSTRING, "l": OP.PRINTLOCALIZED, "i": OP.PRINTNUMBER, "d": OP.PRINTNUMBER,
             "c": OP.PRINTCHARACTER, "n": OP.PRINTNAME, "f": OP.PRINTFIXED, "k": OP.PRINTBIND,
             "b": OP.PRINTBINARY, "x": OP.PRINTHEX}
# a: prints (whole array, ranged) and strcpy targets, by array kind
CHAR_ARRAY_OPS = {
    "maparray": (OP.PRINTMAPCHARARRAY, OP.PRINTMAPCHRANGE, OP.STRCPYTOMAPCHRANGE),
    "worldarray": (OP.PRINTWORLDCHARARRAY, OP.PRINTWORLDCHRANGE, OP.STRCPYTOWORLDCHRANGE),
    "globalarray": (OP.PRINTGLOBALCHARARRAY, OP.PRINTGLOBALCHRANGE, OP.STRCPYTOGLOBALCHRANGE),
    "scriptarray": (OP.PRINTSCRIPTCHARARRAY, OP.PRINTSCRIPTCHRANGE, OP.STRCPYTOSCRIPTCHRANGE),
}
TRANSLATION_OPS = {"palette": OP.TRANSLATIONRANGE1, "rgb": OP.TRANSLATIONRANGE2, "desat": OP.TRANSLATIONRANGE3,
                   "colourise": OP.TRANSLATIONRANGE4, "tint": OP.TRANSLATIONRANGE5}
ALL_SCRIPT_TYPES = {**SCRIPT_TYPES, **ACC_ONLY_SCRIPT_TYPES}
_PUSHBYTE = OP.PUSHBYTE
_DUP = OP.DUP


class Emitter:
    """The growing lump of compact (``ACSe``) code: p-codes appended as acc appends them, merging runs of
    PUSHBYTE like acc does. WideEmitter writes the four-byte (``ACSE``) form."""

    compact = True

    def __init__(self):
        self.buf = bytearray(b"ACS\0\0\0\0\0")  # code starts at 8; the directory offset is patched last
        self.run_start = 0  # address of the PUSHBYTE that began the current run, 0 if none
        self.last = OP.NOP  # last p-code appended (acc's pc_LastAppendedCommand)

    @property
    def address(self) -> int:
        return len(self.buf)

    def op(self, pcode: int) -> None:
        self.last = pcode
        if self.run_start:
            if pcode == _DUP:  # a DUP after PUSHBYTE n becomes another PUSHBYTE n, merged later
                buf = self.buf
                buf.append(_PUSHBYTE)
                buf.append(buf[-2])
                return
            if pcode != _PUSHBYTE:
                if len(self.buf) - self.run_start > 2:
                    self.flush()
                else:  # a single PUSHBYTE ends here as it is (flush's first case, without the call)
                    self.run_start = 0
        elif pcode == _PUSHBYTE:
            self.run_start = len(self.buf)
        if pcode < COMPACT_SPLIT:  # pcodes.py's compact opcode encoding, inlined: this runs per p-code
            self.buf.append(pcode)
        else:
            self.buf += bytes((COMPACT_SPLIT + ((pcode - COMPACT_SPLIT) >> 8), (pcode - COMPACT_SPLIT) & 255))

    def op_index(self, pcode: int, value: int) -> None:
        """``op(pcode)`` then ``index(value)``, for a p-code that takes a variable's, array's, function's or
        special's number (never PUSHBYTE or DUP, so only the run before it needs ending)."""
        if self.run_start:
            if len(self.buf) - self.run_start > 2:
                self.flush()
            else:
                self.run_start = 0
        if pcode >= COMPACT_SPLIT:
            self.op(pcode)
            self.buf.append(value & 255)
            return
        self.last = pcode
        buf = self.buf
        buf.append(pcode)
        buf.append(value & 255)

    def flush(self) -> None:
        """End the current PUSHBYTE run, merging it into PUSH2BYTES..PUSH5BYTES or PUSHBYTES."""
        start = self.run_start
        self.run_start = 0
        buf = self.buf
        if not start or len(buf) - start <= 2:  # no run, or a single PUSHBYTE: it stays as it is
            return
        values = bytes(buf[start + 1::2])
        merged = bytearray()
        for at in range(0, len(values), 255):  # PUSHBYTES counts in one byte; acc would overflow it
            chunk = values[at:at + 255]
            if len(chunk) > 5:
                merged += bytes((OP.PUSHBYTES, len(chunk))) + chunk
            elif len(chunk) > 1:
                merged += bytes((OP.PUSH2BYTES + len(chunk) - 2,)) + chunk
            else:
                merged += bytes((OP.PUSHBYTE,)) + chunk
        buf[start:] = merged

    def label(self) -> int:
        """The current address as a jump target. A PUSHBYTE run does not continue across it (acc would
        merge it and leave the target pointing into the merged instruction)."""
        if self.run_start:
            self.flush()
        return len(self.buf)

    def byte(self, value: int) -> None:
        self.buf.append(value & 255)

    def index(self, value: int) -> None:
        """A variable, array, function or special number operand: one byte compact, four otherwise."""
        self.buf.append(value & 255)

    def int32(self, value: int) -> None:
        self.buf += _pack_uint(value & 0xFFFFFFFF)

    def word(self, value: int) -> None:
        self.buf += _pack_ushort(value & 0xFFFF)

    def push(self, value: int) -> None:
        """acc's PC_AppendPushVal: PUSHBYTE for 0..255 in compact code, else PUSHNUMBER."""
        value &= 0xFFFFFFFF
        if value > 255:
            self.op(OP.PUSHNUMBER)
            self.buf += _pack_uint(value)
            return
        buf = self.buf
        if not self.run_start:  # op(PUSHBYTE), inlined
            self.run_start = len(buf)
        self.last = _PUSHBYTE
        buf.append(_PUSHBYTE)
        buf.append(value)

    def jump_slot(self) -> int:
        """Reserve four bytes for a forward jump target; returns where to patch."""
        at = len(self.buf)
        self.buf += b"\0\0\0\0"
        return at

    def patch(self, at: int, target: int) -> None:
        struct.pack_into("<I", self.buf, at, target)
        self.last = OP.NOP  # acc's PC_WriteInt forgets the last p-code

    def align4(self) -> None:
        self.buf += bytes(-len(self.buf) % 4)


class WideEmitter(Emitter):
    """The four-byte (``ACSE``, #nocompact) form: every opcode and index operand is a u32, numbers are pushed
    with PUSHNUMBER, and nothing is merged."""

    compact = False

    def op(self, pcode: int) -> None:
        self.last = pcode
        self.buf += _pack_uint(pcode)

    def op_index(self, pcode: int, value: int) -> None:
        self.last = pcode
        self.buf += _pack_uint(pcode) + _pack_uint(value & 0xFFFFFFFF)

    def index(self, value: int) -> None:
        self.buf += _pack_uint(value & 0xFFFFFFFF)

    def push(self, value: int) -> None:
        self.op(OP.PUSHNUMBER)
        self.buf += _pack_uint(value & 0xFFFFFFFF)


class _Flow:
    """Jumps waiting for the end (breaks) or the continue point (continues) of a loop or switch."""

    __slots__ = ("breaks", "continues", "is_loop", "cases")

    def __init__(self, is_loop: bool):
        self.breaks: list[int] = []
        self.continues: list[int] = []
        self.is_loop = is_loop
        self.cases: list[tuple[int | None, int]] = []


def generate(program: ast.Program, findings: Findings) -> Module:
    """The compiled module of a checked program."""
    generator = Generator(findings)
    generator.program(program)
    return generator.module()


class Generator:
    """Emits the code of each script and function, in source order, into one Emitter; reads what a node
    means from the checker's ``findings.facts``. ``module()`` then gathers the code and the tables."""

    def __init__(self, findings: Findings):
        self.findings = findings
        self.facts = findings.facts
        self.compact = findings.compact
        self.out = Emitter() if self.compact else WideEmitter()
        self.tag_strings = findings.library is not None  # a library tags each string it pushes (TAGSTRING)
        self.flows: list[_Flow] = []
        self.switches: list[_Flow] = []
        self.scripts: list[ScriptInfo] = []
        self.addresses: dict[Function, int] = {}

    # ---- top level -----------------------------------------------------------------------------

    def program(self, program: ast.Program) -> None:
        for item in program.items:
            kind = type(item)
            if kind is ast.ScriptDef:
                self.script(item)
            elif kind is ast.FunctionDef:
                self.function(item)

    def script(self, node: ast.ScriptDef) -> None:
        out = self.out
        address = out.label()
        out.last = OP.NOP
        self.statement(node.body)
        if out.last != OP.TERMINATE:
            out.op(OP.TERMINATE)
        layout = self.facts[node]
        self.scripts.append(ScriptInfo(layout.number, ALL_SCRIPT_TYPES[node.kind], len(node.params), node.flags,
                                       address, layout.var_count, layout.array_sizes))

    def function(self, node: ast.FunctionDef) -> None:
        out = self.out
        address = out.label()
        out.last = OP.NOP
        for stmt in node.body:
            self.statement(stmt)
        if out.last not in (OP.RETURNVOID, OP.RETURNVAL):
            out.op(OP.RETURNVOID)
        self.addresses[self.facts[node]] = address

    def module(self) -> Module:
        findings = self.findings
        functions = []
        for fn in findings.functions:
            if fn.imported:  # the engine finds it in a loaded library by name: address 0
                functions.append(FunctionInfo(fn.arg_count, fn.arg_count, fn.returns, 0, fn.name.lower()))
            else:
                functions.append(FunctionInfo(fn.arg_count, fn.var_count - fn.arg_count, fn.returns,
                                              self.addresses[fn], fn.name.lower(), fn.array_sizes))
        return Module(self.out, self.scripts, functions, findings.strings, findings.script_names,
                      findings.map_slots, findings.map_values_given, findings.imports, findings.library is not None,
                      findings.wadauthor, findings.encrypt_strings)

    # ---- statements ----------------------------------------------------------------------------

    def statement(self, node: ast.Stmt) -> None:
        self._STATEMENTS[type(node)](self, node)

    def compound(self, node: ast.Compound) -> None:
        for stmt in node.body:
            self._STATEMENTS[type(stmt)](self, stmt)

    def nothing(self, node) -> None:
        pass

    def var_decl(self, node: ast.VarDecl) -> None:
        if node.static:
            return  # a map variable: its initial value is in the object's tables
        out = self.out
        for decl in node.declarators:
            if decl.init is None:
                continue
            fact = self.facts[decl]
            if type(fact) is Variable:
                self.expr(decl.init)
                out.op_index(OP.ASSIGNSCRIPTVAR, fact.index)
            else:
                sym, elements = fact
                for offset, item in elements:
                    out.push(offset)
                    self.expr(item)
                    out.op_index(OP.ASSIGNSCRIPTARRAY, sym.index)

    def assign(self, node: ast.Assign) -> None:
        sym = self.store_target(node.target)
        self.expr(node.value)
        self.out.op_index(VARIABLE_OPS[node.op, sym.kind], sym.index)

    def incdec_statement(self, node: ast.IncDecStatement) -> None:
        sym = self.store_target(node.target)
        self.out.op_index(VARIABLE_OPS[node.op, sym.kind], sym.index)

    def store_target(self, target: ast.Expr) -> Variable:
        """The variable an assignment changes; for an array element, its offset is pushed first."""
        if type(target) is ast.Subscript:
            self.element_offset(target)
            return self.facts[target.base]
        return self.facts[target]

    def statement_list(self, node: ast.StatementList) -> None:
        for item in node.items:
            self.statement(item)

    def expr_statement(self, node: ast.ExprStatement) -> None:
        expr = node.expr
        kind = type(expr)
        if kind is ast.Call:
            self.call(expr, discard=True)
        else:
            self.expr(expr)
            self.out.op(OP.DROP)

    def print_statement(self, node: ast.Print) -> None:
        out = self.out
        out.op(OP.BEGINPRINT)
        self.print_items(node.items)
        out.op({"print": OP.ENDPRINT, "printbold": OP.ENDPRINTBOLD, "log": OP.ENDLOG}[node.kind])

    def hudmessage(self, node: ast.HudMessage) -> None:
        out = self.out
        out.op(OP.BEGINPRINT)
        self.print_items(node.items)
        out.op(OP.MOREHUDMESSAGE)
        self.exprs(node.args[:6])
        if len(node.args) > 6:
            out.op(OP.OPTHUDMESSAGE)
            self.exprs(node.args[6:])
        out.op(OP.ENDHUDMESSAGEBOLD if node.bold else OP.ENDHUDMESSAGE)

    def execute_wait(self, node: ast.ExecuteWait) -> None:
        call = node.call
        facts = self.facts[call]
        out = self.out
        if node.named:
            for i, arg in enumerate(call.args):
                self.expr(arg)
                if i == 0:
                    out.op(OP.DUP)
            self.callfunc(len(call.args), facts.target.index)
            out.op(OP.DROP)
            out.op(OP.SCRIPTWAITNAMED)
            return
        if call.direct:
            self.special_direct(80, facts.values)
            out.op(OP.SCRIPTWAITDIRECT)
            out.int32(facts.values[0])
            return
        for i, arg in enumerate(call.args):
            self.expr(arg)
            if i == 0:
                out.op(OP.DUP)
        out.op_index(OP.LSPEC1 + len(call.args) - 1, 80)
        out.op(OP.SCRIPTWAIT)

    def if_statement(self, node: ast.If) -> None:
        self.branch(node.cond, self.statement, node.then, node.other)

    def branch(self, cond: ast.Expr, emit, then, other) -> None:
        """``if``/``?:`` as acc lays them out: cond, IFNOTGOTO past ``then``, then (when there is an
        ``other``) a GOTO past it; ``emit`` compiles ``then`` and ``other``."""
        out = self.out
        self.expr(cond)
        out.op(OP.IFNOTGOTO)
        skip_then = out.jump_slot()
        emit(then)
        if other is None:
            out.patch(skip_then, out.label())
            return
        out.op(OP.GOTO)
        skip_other = out.jump_slot()
        out.patch(skip_then, out.label())
        emit(other)
        out.patch(skip_other, out.label())

    def while_statement(self, node: ast.While) -> None:
        out = self.out
        top = out.label()
        self.expr(node.cond)
        out.op(OP.IFGOTO if node.until else OP.IFNOTGOTO)
        exit_slot = out.jump_slot()
        flow = self.enter_flow(True)
        self.statement(node.body)
        out.op(OP.GOTO)
        out.int32(top)
        out.patch(exit_slot, out.label())
        self.leave_flow(flow, continue_to=top)

    def do_statement(self, node: ast.DoWhile) -> None:
        out = self.out
        top = out.label()
        flow = self.enter_flow(True)
        self.statement(node.body)
        condition = out.label()
        self.expr(node.cond)
        out.op(OP.IFNOTGOTO if node.until else OP.IFGOTO)
        out.int32(top)
        self.leave_flow(flow, continue_to=condition)

    def for_statement(self, node: ast.For) -> None:
        out = self.out
        if node.init is not None:
            self.statement(node.init)
        condition = out.label()
        if node.cond is None:
            out.push(1)
        else:
            self.expr(node.cond)
        out.op(OP.IFGOTO)
        body_slot = out.jump_slot()
        out.op(OP.GOTO)
        exit_slot = out.jump_slot()
        step = out.label()
        if node.step is not None:
            self.statement(node.step)
        out.op(OP.GOTO)
        out.int32(condition)
        out.patch(body_slot, out.label())
        flow = self.enter_flow(True)
        self.statement(node.body)
        out.op(OP.GOTO)
        out.int32(step)
        self.leave_flow(flow, continue_to=step)
        out.patch(exit_slot, out.label())

    def switch(self, node: ast.Switch) -> None:
        out = self.out
        self.expr(node.expr)
        out.op(OP.GOTO)
        dispatch_slot = out.jump_slot()
        flow = self.enter_flow(False)
        self.switches.append(flow)
        self.statement(node.body)
        self.switches.pop()
        out.op(OP.GOTO)
        exit_slot = out.jump_slot()
        out.patch(dispatch_slot, out.label())
        default = None
        cases = []
        for value, address in flow.cases:
            if value is None:
                default = address
            else:
                cases.append((value, address))
        if self.findings.hexen_case:  # acc's -h: Hexen's CASEGOTO, in the reverse order of the labels
            for value, address in reversed(cases):
                out.op(OP.CASEGOTO)
                out.int32(value)
                out.int32(address)
        elif cases:
            cases.sort()
            out.op(OP.CASEGOTOSORTED)
            out.align4()
            out.int32(len(cases))
            for value, address in cases:
                out.int32(value)
                out.int32(address)
        out.op(OP.DROP)
        if default is not None:
            out.op(OP.GOTO)
            out.int32(default)
        out.patch(exit_slot, out.label())
        self.leave_flow(flow)

    def case_label(self, node: ast.Case) -> None:
        self.switches[-1].cases.append((None if node.value is None else self.facts[node], self.out.label()))

    def enter_flow(self, is_loop: bool) -> _Flow:
        flow = _Flow(is_loop)
        self.flows.append(flow)
        return flow

    def leave_flow(self, flow: _Flow, continue_to: int | None = None) -> None:
        self.flows.pop()
        out = self.out
        for at in reversed(flow.continues):
            out.patch(at, continue_to)
        if flow.breaks:
            end = out.label()
            for at in reversed(flow.breaks):
                out.patch(at, end)

    def jump(self, node: ast.Jump) -> None:
        out = self.out
        kind = node.kind
        if kind == "break":
            out.op(OP.GOTO)
            self.flows[-1].breaks.append(out.jump_slot())
        elif kind == "continue":
            out.op(OP.GOTO)
            loop = next(flow for flow in reversed(self.flows) if flow.is_loop)
            loop.continues.append(out.jump_slot())
        else:
            out.op({"restart": OP.RESTART, "terminate": OP.TERMINATE, "suspend": OP.SUSPEND}[kind])

    def return_statement(self, node: ast.Return) -> None:
        if node.value is None:
            self.out.op(OP.RETURNVOID)
        else:
            self.expr(node.value)
            self.out.op(OP.RETURNVAL)

    def create_translation(self, node: ast.CreateTranslation) -> None:
        out = self.out
        self.expr(node.number)
        out.op(OP.STARTTRANSLATION)
        for item in node.ranges:
            self.exprs(item.operands)
            out.op(TRANSLATION_OPS[item.kind])
        out.op(OP.ENDTRANSLATION)

    _STATEMENTS = {
        ast.Compound: compound, ast.Empty: nothing, ast.VarDecl: var_decl, ast.Assign: assign,
        ast.IncDecStatement: incdec_statement, ast.StatementList: statement_list,
        ast.ExprStatement: expr_statement, ast.Print: print_statement, ast.HudMessage: hudmessage,
        ast.ExecuteWait: execute_wait, ast.If: if_statement, ast.While: while_statement,
        ast.DoWhile: do_statement, ast.For: for_statement, ast.Switch: switch, ast.Case: case_label,
        ast.Jump: jump, ast.Return: return_statement, ast.CreateTranslation: create_translation,
    }

    # ---- expressions ---------------------------------------------------------------------------

    def expr(self, node: ast.Expr) -> None:
        kind = type(node)
        if kind is ast.Number:
            self.out.push(node.value)
        elif kind is ast.Name:
            sym = self.facts[node]
            if type(sym) is Variable:  # the commonest case, inlined
                self.out.op_index(PUSH_OPS[sym.kind], sym.index)
            else:
                self.name(node)
        elif kind is ast.Binary:
            self.binary(node)
        else:
            self._EXPRESSIONS[kind](self, node)

    def exprs(self, nodes: list) -> None:
        """The code of each expression in turn; a number is pushed without a call to expr, and None (an
        argument left out where the checker allows it) pushes 0."""
        push = self.out.push
        expr = self.expr
        for node in nodes:
            if type(node) is ast.Number:
                push(node.value)
            elif node is None:
                push(0)
            else:
                expr(node)

    def binary(self, node: ast.Binary) -> None:
        left = node.left
        if type(left) is not ast.Binary:  # one operator (the commonest): no chain to gather
            self.expr(left)
            self.expr(node.right)
            self.out.op(BINARY_OPS[node.op])
            return
        first, links = ast.binary_chain(node)
        self.expr(first)
        op = self.out.op
        for link in links:
            self.expr(link.right)
            op(BINARY_OPS[link.op])

    def string(self, node: ast.String) -> None:
        self.out.push(self.facts[node])
        if self.tag_strings:
            self.out.op(OP.TAGSTRING)

    def name(self, node: ast.Name) -> None:
        sym = self.facts[node]
        if type(sym) is Variable:
            self.out.op_index(VARIABLE_OPS["push", sym.kind], sym.index)
        elif type(sym) is bi.Constant:
            self.out.push(sym.value)
            if self.tag_strings and sym in self.findings.string_constants:
                self.out.op(OP.TAGSTRING)
        else:  # a line special's name stands for its number
            self.out.push(sym.number)

    def subscript(self, node: ast.Subscript) -> None:
        sym = self.facts[node.base]
        self.element_offset(node)
        self.out.op_index(VARIABLE_OPS["push", sym.kind], sym.index)

    def element_offset(self, node: ast.Subscript) -> None:
        """Push the flat element offset of ``node``, as acc's ParseArrayIndices computes it."""
        sym: Variable = self.facts[node.base]
        out = self.out
        last = sym.ndim - 1
        for i, index in enumerate(node.indices):
            self.expr(index)
            if i < last and sym.multipliers[i] > 1:
                out.push(sym.multipliers[i])
                out.op(OP.MULTIPLY)
            if i > 0:
                out.op(OP.ADD)

    def unary(self, node: ast.Unary) -> None:
        self.expr(node.operand)
        self.out.op(UNARY_OPS[node.op])

    def ternary(self, node: ast.Ternary) -> None:
        self.branch(node.cond, self.expr, node.then, node.other)

    def incdec(self, node: ast.IncDec) -> None:
        out = self.out
        target = node.target
        is_element = type(target) is ast.Subscript
        sym = self.facts[target.base if is_element else target]
        step = VARIABLE_OPS[node.op, sym.kind]
        load = VARIABLE_OPS["push", sym.kind]
        if is_element:
            self.element_offset(target)
            out.op(OP.DUP)
        if node.prefix:
            out.op_index(step, sym.index)
            out.op_index(load, sym.index)
        else:
            out.op_index(load, sym.index)
            if is_element:
                out.op(OP.SWAP)
            out.op_index(step, sym.index)

    def strparam(self, node: ast.StrParam) -> None:
        self.out.op(OP.BEGINPRINT)
        self.print_items(node.items)
        self.out.op(OP.SAVESTRING)

    def print_items(self, items: list[ast.PrintItem]) -> None:
        out = self.out
        for item in items:
            if item.kind == "a":
                self.char_range(item.value, write=False)
            else:
                self.expr(item.value)
                out.op(PRINT_OPS[item.kind])

    def char_range(self, node: ast.CharRange, write: bool, source=None, offset=None) -> None:
        out = self.out
        target = node.array
        sym: Variable = self.facts[target.base if type(target) is ast.Subscript else target]
        if type(target) is ast.Subscript:
            self.element_offset(target)  # the row's first element
        else:
            out.push(0)
        out.push(sym.index)
        ranged = node.ranged
        if ranged:
            self.expr(node.start)
            if node.length is None:
                out.push(0x7FFFFFFF)
            else:
                self.expr(node.length)
        whole, ranged_op, copy_op = CHAR_ARRAY_OPS[sym.kind]
        if write:
            if not ranged:
                out.push(0)
                out.push(0x7FFFFFFF)
            self.expr(source)
            if offset is None:
                out.push(0)
            else:
                self.expr(offset)
            out.op(copy_op)
        else:
            out.op(ranged_op if ranged else whole)

    def strcpy(self, node: ast.StrCpy) -> None:
        self.char_range(node.dest, write=True, source=node.source, offset=node.offset)

    def morphactor(self, node: ast.MorphActor) -> None:
        out = self.out
        for i in range(7):
            arg = node.args[i] if i < len(node.args) else None
            if arg is not None:
                self.expr(arg)
            else:
                out.push(self.facts[node] if i in MORPH_STRING_ARGS else 0)
        out.op(OP.MORPHACTOR)

    def call_expr(self, node: ast.Call) -> None:
        self.call(node, discard=False)

    def call(self, node: ast.Call, discard: bool) -> None:
        facts = self.facts[node]
        target = facts.target
        out = self.out
        kind = type(target)
        if kind is Function:
            self.exprs(node.args)
            out.op_index(OP.CALLDISCARD if discard else OP.CALL, target.number)
        elif kind is bi.Internal:
            self.internal(node, target, facts)
            if discard and target.returns:
                out.op(OP.DROP)
        elif kind is bi.CallFunc:
            self.exprs(node.args)
            for _ in range(facts.fills):
                out.push(0)
            self.callfunc(len(node.args) + facts.fills, target.index)
            if discard:
                out.op(OP.DROP)
        elif discard:
            self.special_statement(node, target, facts)
        else:
            self.exprs(node.args)
            for _ in range(len(node.args), 5):
                out.push(0)
            if target.number > 255:  # zdoom target only: acc's LSPEC5EXRESULT, the number always 4 bytes
                out.op(OP.LSPEC5EXRESULT)
                out.int32(target.number)
            else:
                out.op_index(OP.LSPEC5RESULT, target.number)

    def callfunc(self, argc: int, index: int) -> None:
        out = self.out
        out.op(OP.CALLFUNC)
        if self.compact:
            out.byte(argc)
            out.word(index)
        else:
            out.int32(argc)
            out.int32(index)

    def special_statement(self, node: ast.Call, special: bi.Special, facts) -> None:
        out = self.out
        if special.number > 255:  # zdoom target only: acc's LSPEC5EX with all five arguments on the stack
            if special.max_args == 0 or not node.args:
                count = 1  # acc's faked constant 0, which it never pushes
            else:
                count = len(node.args)
                if not node.direct:  # acc pushes no const: argument here, only the zeros that pad to five
                    self.exprs(node.args)
            for _ in range(count, 5):
                out.push(0)
            out.op(OP.LSPEC5EX)
            out.int32(special.number)
            return
        if special.max_args == 0 or not node.args:
            self.special_direct(special.number, [0])  # acc's zero-argument specials: one constant 0
            return
        if node.direct:
            self.special_direct(special.number, facts.values)
            return
        self.exprs(node.args)
        out.op_index(OP.LSPEC1 + len(node.args) - 1, special.number)

    def special_direct(self, number: int, values: list[int]) -> None:
        out = self.out
        count = len(values)
        if not self.compact:
            out.op(OP.LSPEC1DIRECT + count - 1)
            out.int32(number)
            for value in values:
                out.int32(value)
            return
        wide = any(value & 0xFFFFFFFF > 255 for value in values)
        out.op((OP.LSPEC1DIRECT if wide else OP.LSPEC1DIRECTB) + count - 1)
        out.byte(number)
        for value in values:
            if wide:
                out.int32(value)
            else:
                out.byte(value)

    def internal(self, node: ast.Call, entry: bi.Internal, facts) -> None:
        out = self.out
        if not node.direct:
            self.exprs(node.args)
            for _ in range(facts.fills):
                out.push(0)
            out.op(entry.stack_pcode)
            return
        values = facts.values
        short = {OP.DELAYDIRECT: OP.DELAYDIRECTB, OP.RANDOMDIRECT: OP.RANDOMDIRECTB}.get(entry.direct_pcode)
        if self.compact and short is not None and not any(v & 0xFFFFFFFF > 255 for v in values):
            out.op(short)
            for value in values:
                out.byte(value)
            return
        out.op(entry.direct_pcode)
        for value in values:
            out.int32(value)

    _EXPRESSIONS = {
        ast.String: string, ast.Name: name, ast.Subscript: subscript, ast.Unary: unary, ast.Ternary: ternary,
        ast.IncDec: incdec, ast.Call: call_expr, ast.StrParam: strparam, ast.StrCpy: strcpy,
        ast.MorphActor: morphactor,
    }
