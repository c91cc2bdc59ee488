"""Recursive-descent parser: token stream to syntax tree, with acc's grammar and operator precedence."""

from __future__ import annotations

from . import ast
from .format import SCRIPT_FLAGS, SCRIPT_TYPES, UNSUPPORTED_SCRIPT_TYPES
from .lexer import Token

# Binary operators by precedence, loosest first (acc's parse.c levels B to K; the ternary is level A).
_BINARY_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
                  ("<<", ">>"), ("+", "-"), ("*", "/", "%"))
_PRECEDENCE = {op: level for level, ops in enumerate(_BINARY_LEVELS) for op in ops}
_ASSIGN_OPS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>="))
# Words that may follow a script's number and arguments (the checker refuses the unsupported ones).
_SCRIPT_TYPE_WORDS = frozenset(SCRIPT_TYPES).union(UNSUPPORTED_SCRIPT_TYPES) - {"closed"}
VAR_TYPES = ("int", "str", "bool")
PRINT_KINDS = frozenset("sldicnfkbxa")
MAX_NESTING = 200  # statements and parenthesised expressions; keeps every pass well inside Python's stack


def parse(tokens: list[Token]) -> ast.Program:
    return Parser(tokens).program()


class Parser:
    def __init__(self, tokens: list[Token]):
        self.tokens = tokens
        self.pos = 0
        self.tok = tokens[0]
        self.nesting = 0
        self.names_only = False  # a script number: NAME ( is a constant then the argument list

    # ---- token helpers -------------------------------------------------------------------------

    def advance(self) -> Token:
        tok = self.tok
        if tok.kind != "eof":
            self.pos += 1
            self.tok = self.tokens[self.pos]
        return tok

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def accept(self, kind: str) -> Token | None:
        if self.tok.kind == kind:
            return self.advance()
        return None

    def expect(self, kind: str, what: str | None = None) -> Token:
        if self.tok.kind == kind:
            return self.advance()
        raise self.unexpected(what or f"'{kind}'")

    def unexpected(self, wanted: str):
        tok = self.tok
        found = "end of file" if tok.kind == "eof" else f"'{tok.text}'"
        return tok.error(f"expected {wanted}, found {found}")

    def ident(self, what: str = "a name") -> Token:
        if self.tok.kind == "ident":
            return self.advance()
        if self.tok.kind not in ("eof", "number", "string") and self.tok.text[:1].isalpha():
            raise self.tok.error(f"'{self.tok.text}' is a reserved word and cannot be used as {what}")
        raise self.unexpected(what)

    def enter(self, tok: Token) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise tok.error(f"nested more than {MAX_NESTING} levels deep")

    def leave(self) -> None:
        self.nesting -= 1

    # ---- top level -----------------------------------------------------------------------------

    def program(self) -> ast.Program:
        first = self.tok
        items: list[ast.Node] = []
        while self.tok.kind != "eof":
            kind = self.tok.kind
            if kind == "script":
                items.append(self.script())
            elif kind == "function":
                items.append(self.function())
            elif kind in VAR_TYPES:
                tok = self.advance()
                items.append(ast.MapVarDecl(tok, kind, self.declarators(tok, allow_code=False)))
            elif kind in ("world", "global"):
                items.append(self.world_declaration())
            elif kind == "special":
                items.extend(self.special_declaration())
            elif kind == "#":
                item = self.directive()
                if item is not None:
                    items.append(item)
            elif kind == "builtin":
                tok = self.advance()
                items.append(ast.Directive(tok, "include", tok.value))
            elif kind == ";":
                self.advance()
            else:
                raise self.unexpected("a script, a function or a declaration")
        return ast.Program(first, items)

    def directive(self) -> ast.Node | None:
        hash_tok = self.advance()
        tok = self.tok
        kind = tok.kind
        if kind in ("define", "libdefine"):
            self.advance()
            name = self.ident("a constant name")
            return ast.Define(name, self.expression())
        if kind in ("nocompact", "wadauthor", "nowadauthor", "encryptstrings"):
            self.advance()
            return ast.Directive(tok, kind)
        if kind in ("region", "endregion"):
            self.advance()
            self.skip_line(tok)
            return None
        raise hash_tok.error(f"unknown directive '#{tok.text}' (known: #define, #libdefine, #include, "
                             "#nocompact, #wadauthor, #nowadauthor, #encryptstrings, #region, #endregion)")

    def skip_line(self, tok: Token) -> None:
        text = tok.source.text
        line_end = text.find("\n", tok.offset)
        while self.tok.kind != "eof" and self.tok.source is tok.source and 0 <= line_end and \
                self.tok.offset < line_end:
            self.advance()

    def script(self) -> ast.ScriptDef:
        tok = self.advance()
        number: ast.Expr | None = None
        name: str | None = None
        explicit_zero = self.tok.kind == "<<"
        if explicit_zero:
            self.advance()
            zero = self.expect("number", "0 in <<0>>")
            if zero.value != 0:
                raise zero.error("only script 0 is written as <<0>>")
            self.expect(">>", "'>>' closing <<0>>")
            number = ast.Number(zero, 0)
        elif self.tok.kind == "string":
            name_tok = self.advance()
            name = name_tok.value
            number = None
            if name.lower() == "none":
                raise name_tok.error('a script cannot be named "None"')
        else:
            self.names_only = True
            number = self.expression()
            self.names_only = False
        params: list[ast.Param] = []
        kind = "closed"
        if self.accept("("):
            if not self.accept("void"):
                params = self.parameters(allow_array=False)
            self.expect(")")
        if self.tok.kind in _SCRIPT_TYPE_WORDS:
            kind = self.advance().kind
        flags = 0
        for word, bit in SCRIPT_FLAGS.items():
            if self.accept(word):
                flags |= bit
        self.enter(tok)
        body = self.statement()
        self.leave()
        end = self.tokens[self.pos - 1]
        script = ast.ScriptDef(tok, number, name, params, kind, flags, body, end)
        script.explicit_zero = explicit_zero
        return script

    def parameters(self, allow_array: bool) -> list[ast.Param]:
        params = []
        while True:
            type_tok = self.tok
            if type_tok.kind not in VAR_TYPES:
                raise self.unexpected("a parameter type (int, str or bool)")
            self.advance()
            type_ = type_tok.kind
            if allow_array and self.tok.kind == "[":
                raise self.tok.error("array parameters (int[] name) are not supported")
            params.append(ast.Param(self.ident("a parameter name"), type_))
            if not self.accept(","):
                return params

    def function(self) -> ast.FunctionDef:
        self.advance()  # "function"
        if self.tok.kind not in ("void", "int", "str", "bool"):
            raise self.unexpected("a return type (void, int, str or bool)")
        return_type = self.advance().kind
        name = self.ident("a function name")
        self.expect("(")
        params: list[ast.Param] = []
        if not self.accept("void") and self.tok.kind != ")":
            params = self.parameters(allow_array=True)
        self.expect(")")
        self.expect("{", "'{' to open the function body")
        body = []
        while self.tok.kind != "}":
            if self.tok.kind == "eof":
                raise self.unexpected(f"'}}' to close function {name.text}")
            body.append(self.statement())
        end = self.advance()
        return ast.FunctionDef(name, return_type, name.value, params, body, end)

    def declarators(self, type_tok: Token, allow_code: bool) -> list[ast.Declarator]:
        """The names of one declaration, through its ';'. Local (``allow_code``) initializers may be any expression."""
        items = []
        while True:
            name = self.ident("a variable name")
            dims = None
            init = None
            if self.tok.kind == "[":
                dims = []
                while self.tok.kind == "[":
                    bracket = self.advance()
                    if self.tok.kind == "]":
                        raise bracket.error(f"array '{name.text}' needs a size here")
                    dims.append(self.expression())
                    self.expect("]")
                if self.accept("="):
                    if self.tok.kind != "{":
                        raise self.unexpected("'{' to start the array's initializer")
                    init = self.array_init()
            elif self.accept("="):
                init = self.expression()
            items.append(ast.Declarator(name, dims, init))
            if not self.accept(","):
                break
        self.expect(";", "';' after the declaration")
        return items

    def array_init(self) -> ast.ArrayInit:
        tok = self.expect("{")
        self.enter(tok)
        items: list = []
        while self.tok.kind != "}":
            if self.tok.kind == ",":
                self.advance()
                items.append(None)
                continue
            items.append(self.array_init() if self.tok.kind == "{" else self.expression())
            if self.tok.kind != "}":
                self.expect(",", "',' or '}' in the array initializer")
        self.advance()
        self.leave()
        return ast.ArrayInit(tok, items)

    def world_declaration(self) -> ast.WorldVarDecl:
        scope_tok = self.advance()
        if self.tok.kind not in VAR_TYPES:
            raise self.unexpected("a variable type (int, str or bool)")
        type_ = self.advance().kind
        variables = []
        while True:
            index = self.primary_constant("the variable's number")
            self.expect(":", f"':' between the {scope_tok.kind} variable's number and its name")
            name = self.ident("a variable name")
            is_array = False
            if self.tok.kind == "[":
                self.advance()
                if self.tok.kind != "]":
                    raise self.tok.error(f"{scope_tok.kind} arrays take no size: write {name.text}[]")
                self.advance()
                if self.tok.kind == "[":
                    raise self.tok.error(f"{scope_tok.kind} arrays have one dimension")
                is_array = True
            variables.append(ast.WorldVar(name, index, is_array))
            if not self.accept(","):
                break
        self.expect(";", "';' after the declaration")
        return ast.WorldVarDecl(scope_tok, scope_tok.kind, type_, variables)

    def primary_constant(self, what: str) -> ast.Expr:
        tok = self.tok
        if tok.kind == "number":
            self.advance()
            return ast.Number(tok, tok.value)
        if tok.kind == "ident":
            self.advance()
            return ast.Name(tok)
        raise self.unexpected(what)

    def special_declaration(self) -> list[ast.SpecialDef]:
        self.advance()
        specials = []
        while True:
            negative = self.accept("-") is not None
            number = self.expect("number", "the special's number")
            self.expect(":")
            name = self.ident("the special's name")
            self.expect("(")
            low = self.expect("number", "the special's argument count").value
            high = low
            if self.accept(","):
                high = self.expect("number", "the special's maximum argument count").value
            self.expect(")")
            value = -number.value if negative else number.value
            specials.append(ast.SpecialDef(name, value, low, high))
            if not self.accept(","):
                break
        self.expect(";", "';' after the special declaration")
        return specials

    # ---- statements ----------------------------------------------------------------------------

    def statement(self) -> ast.Stmt:
        tok = self.tok
        handler = self._STATEMENTS.get(tok.kind)
        if handler is not None:
            self.enter(tok)
            result = handler(self)
            self.leave()
            return result
        if tok.kind == "ident":
            return self.simple_statement(";")
        raise self.unexpected("a statement")

    def compound(self) -> ast.Compound:
        tok = self.advance()
        body = []
        while self.tok.kind != "}":
            if self.tok.kind == "eof":
                raise tok.error("this '{' is never closed")
            body.append(self.statement())
        self.advance()
        return ast.Compound(tok, body)

    def empty(self) -> ast.Empty:
        return ast.Empty(self.advance())

    def local_declaration(self) -> ast.VarDecl:
        tok = self.advance()
        static = tok.kind == "static"
        type_ = tok.kind
        if static:
            if self.tok.kind not in VAR_TYPES:
                raise self.unexpected("a variable type after 'static'")
            type_ = self.advance().kind
        return ast.VarDecl(tok, type_, self.declarators(tok, allow_code=not static), static)

    def simple_statement(self, end: str) -> ast.Stmt:
        """Assignments, ++/--, or a call, ended by ``end`` (';', or ')' for a for-loop's step)."""
        tok = self.tok
        if tok.kind == "ident" and self.peek().kind == "(":
            call = self.call()
            self.expect(end, f"'{end}' after the call")
            return ast.ExprStatement(tok, call)
        items: list[ast.Stmt] = []
        while True:
            items.append(self.assignment())
            if not self.accept(","):
                break
        self.expect(end, f"'{end}' after the statement")
        return items[0] if len(items) == 1 else ast.StatementList(tok, items)

    def assignment(self) -> ast.Stmt:
        tok = self.tok
        if tok.kind in ("++", "--"):
            self.advance()
            return ast.IncDecStatement(tok, tok.kind, self.lvalue())
        target = self.lvalue()
        op = self.tok
        if op.kind in ("++", "--"):
            self.advance()
            return ast.IncDecStatement(op, op.kind, target)
        if op.kind not in _ASSIGN_OPS:
            raise self.unexpected(f"an assignment operator after '{target.tok.text}'")
        self.advance()
        return ast.Assign(op, target, op.kind, self.expression())

    def lvalue(self) -> ast.Expr:
        name = self.ident("a variable")
        return self.subscripts(ast.Name(name))

    def subscripts(self, base: ast.Name) -> ast.Expr:
        if self.tok.kind != "[":
            return base
        indices = []
        while self.tok.kind == "[":
            self.advance()
            indices.append(self.expression())
            self.expect("]")
        return ast.Subscript(base.tok, base, indices)

    def simple_statement_or_inc(self) -> ast.Stmt:
        return self.simple_statement(";")

    def print_statement(self) -> ast.Print:
        tok = self.advance()
        self.expect("(")
        items = self.print_items()
        self.expect(")", "')' to end the print")
        self.expect(";")
        return ast.Print(tok, tok.kind, items)

    def print_items(self) -> list[ast.PrintItem]:
        items = []
        while True:
            kind_tok = self.tok
            kind = kind_tok.text.lower() if kind_tok.kind == "ident" else ""
            if len(kind) != 1 or kind not in PRINT_KINDS:
                raise self.unexpected("a print item such as s:\"text\", d:number or f:fixed "
                                      "(kinds: s l d i c n f k b x a)")
            self.advance()
            self.expect(":", f"':' after the print kind '{kind_tok.text}'")
            value = self.char_range(kind_tok) if kind == "a" else self.expression()
            items.append(ast.PrintItem(kind_tok, kind, value))
            if not self.accept(","):
                return items

    def char_range(self, tok: Token) -> ast.CharRange:
        ranged = self.accept("(") is not None
        array = self.lvalue()
        start = length = None
        if ranged:
            if self.accept(","):
                start = self.expression()
                if self.accept(","):
                    length = self.expression()
            self.expect(")")
            ranged = start is not None
        return ast.CharRange(tok, array, start, length, ranged)

    def hudmessage(self) -> ast.HudMessage:
        tok = self.advance()
        self.expect("(")
        items = self.print_items()
        self.expect(";", "';' between the HudMessage text and its type, id, color, x, y and hold time")
        args = [self.expression()]
        while self.accept(","):
            args.append(self.expression())
        if len(args) < 6:
            raise self.tok.error(f"HudMessage needs type, id, color, x, y and hold time after the ';' "
                                 f"(got {len(args)} value{'s' if len(args) != 1 else ''})")
        self.expect(")")
        self.expect(";")
        return ast.HudMessage(tok, tok.kind == "hudmessagebold", items, args)

    def expr_statement(self) -> ast.ExprStatement:
        tok = self.tok
        expr = self.primary()
        self.expect(";")
        return ast.ExprStatement(tok, expr)

    def execute_wait(self) -> ast.ExecuteWait:
        tok = self.advance()
        call = self.call_arguments(tok, tok.value)
        self.expect(";")
        return ast.ExecuteWait(tok, call, tok.kind == "acs_namedexecutewait")

    def if_statement(self) -> ast.If:
        tok = self.advance()
        cond = self.condition()
        then = self.statement()
        other = None
        if self.accept("else"):
            other = self.statement()
        return ast.If(tok, cond, then, other)

    def condition(self) -> ast.Expr:
        self.expect("(")
        expr = self.expression()
        self.expect(")")
        return expr

    def while_statement(self) -> ast.While:
        tok = self.advance()
        cond = self.condition()
        return ast.While(tok, tok.kind == "until", cond, self.statement())

    def do_statement(self) -> ast.DoWhile:
        tok = self.advance()
        body = self.statement()
        if self.tok.kind not in ("while", "until"):
            raise self.unexpected("'while' or 'until' after the do statement")
        until = self.advance().kind == "until"
        cond = self.condition()
        self.expect(";")
        return ast.DoWhile(tok, until, body, cond)

    def for_statement(self) -> ast.For:
        tok = self.advance()
        self.expect("(")
        init = None if self.accept(";") else self.statement()
        cond = None if self.tok.kind == ";" else self.expression()
        self.expect(";", "';' after the for loop's condition")
        step = None if self.accept(")") else self.simple_statement(")")
        return ast.For(tok, init, cond, step, self.statement())

    def switch_statement(self) -> ast.Switch:
        tok = self.advance()
        expr = self.condition()
        return ast.Switch(tok, expr, self.statement())

    def case_label(self) -> ast.Case:
        tok = self.advance()
        if tok.kind == "default":
            self.expect(":", "':' after default")
            return ast.Case(tok, None)
        value = self.expression()
        self.expect(":", "':' after the case value")
        return ast.Case(tok, value)

    def jump(self) -> ast.Jump:
        tok = self.advance()
        self.expect(";", f"';' after {tok.kind}")
        return ast.Jump(tok, tok.kind)

    def return_statement(self) -> ast.Return:
        tok = self.advance()
        value = None if self.tok.kind == ";" else self.expression()
        self.expect(";", "';' after return")
        return ast.Return(tok, value)

    def create_translation(self) -> ast.CreateTranslation:
        tok = self.advance()
        self.expect("(")
        number = self.expression()
        ranges = []
        while self.accept(","):
            range_tok = self.tok
            operands = [self.expression()]
            self.expect(":", "':' in the translation's source range")
            operands.append(self.expression())
            self.expect("=", "'=' in the translation range")
            if self.tok.kind in ("#", "@"):
                raise self.tok.error("colourised (#) and tinted (@) translation ranges are not supported "
                                     "by this engine")
            if self.accept("%"):
                kind = "desat"
            elif self.tok.kind == "[":
                kind = "rgb"
            else:
                kind = "palette"
            if kind == "palette":
                operands.append(self.expression())
                self.expect(":")
                operands.append(self.expression())
            else:
                operands.extend(self.colour())
                self.expect(":")
                operands.extend(self.colour())
            ranges.append(ast.TranslationRange(range_tok, kind, operands))
        self.expect(")")
        self.expect(";")
        return ast.CreateTranslation(tok, number, ranges)

    def colour(self) -> list[ast.Expr]:
        self.expect("[", "'[' to start a colour")
        parts = [self.expression()]
        for _ in range(2):
            self.expect(",")
            parts.append(self.expression())
        self.expect("]")
        return parts

    def misplaced(self):
        tok = self.tok
        if tok.kind == "else":
            raise tok.error("'else' without a matching 'if'")
        raise tok.error(f"'{tok.text}' cannot start a statement")

    _STATEMENTS = {
        "{": compound, ";": empty,
        "int": local_declaration, "str": local_declaration, "bool": local_declaration,
        "static": local_declaration,
        "++": simple_statement_or_inc, "--": simple_statement_or_inc,
        "print": print_statement, "printbold": print_statement, "log": print_statement,
        "hudmessage": hudmessage, "hudmessagebold": hudmessage,
        "strparam": expr_statement, "strcpy": expr_statement, "morphactor": expr_statement,
        "acs_executewait": execute_wait, "acs_namedexecutewait": execute_wait,
        "if": if_statement, "while": while_statement, "until": while_statement, "do": do_statement,
        "for": for_statement, "switch": switch_statement, "case": case_label, "default": case_label,
        "break": jump, "continue": jump, "restart": jump, "terminate": jump, "suspend": jump,
        "return": return_statement, "createtranslation": create_translation, "else": misplaced,
    }

    # ---- expressions ---------------------------------------------------------------------------

    def expression(self) -> ast.Expr:
        cond = self.binary(0)
        tok = self.tok
        if tok.kind != "?":
            return cond
        self.advance()
        self.enter(tok)
        then = self.expression()
        self.expect(":", "':' in the ?: expression")
        other = self.expression()
        self.leave()
        return ast.Ternary(tok, cond, then, other)

    def binary(self, min_level: int) -> ast.Expr:
        """Precedence climbing over acc's levels: operators of one level associate to the left."""
        left = self.unary()
        precedence = _PRECEDENCE
        while True:
            level = precedence.get(self.tok.kind)
            if level is None or level < min_level:
                return left
            op = self.advance()
            left = ast.Binary(op, op.kind, left, self.binary(level + 1))

    def unary(self) -> ast.Expr:
        tok = self.tok
        if tok.kind in ("-", "!", "~", "+"):
            self.advance()
            self.enter(tok)
            operand = self.unary()
            self.leave()
            return operand if tok.kind == "+" else ast.Unary(tok, tok.kind, operand)
        return self.primary()

    def primary(self) -> ast.Expr:
        tok = self.tok
        kind = tok.kind
        if kind == "number":
            self.advance()
            return ast.Number(tok, tok.value)
        if kind == "string":
            self.advance()
            return ast.String(tok, tok.value)
        if kind == "ident":
            if self.peek().kind == "(" and not self.names_only:
                return self.call()
            self.advance()
            target = self.subscripts(ast.Name(tok))
            if self.tok.kind in ("++", "--"):
                op = self.advance()
                return ast.IncDec(op, op.kind, target, prefix=False)
            return target
        if kind == "(":
            self.advance()
            self.enter(tok)
            inner = self.expression()
            self.leave()
            self.expect(")", "')' to close '('")
            return inner
        if kind in ("++", "--"):
            self.advance()
            return ast.IncDec(tok, kind, self.lvalue(), prefix=True)
        if kind == "strparam":
            self.advance()
            self.expect("(")
            items = self.print_items()
            self.expect(")")
            return ast.StrParam(tok, items)
        if kind == "strcpy":
            return self.strcpy()
        if kind == "morphactor":
            return ast.MorphActor(tok, self.call_arguments(self.advance(), "morphactor").args)
        raise self.unexpected("an expression")

    def call(self) -> ast.Call:
        name = self.advance()
        return self.call_arguments(name, name.value)

    def call_arguments(self, tok: Token, name: str) -> ast.Call:
        self.expect("(")
        direct = False
        if self.tok.kind == "const":
            self.advance()
            self.expect(":", "':' after const")
            direct = True
        args: list = []
        if self.tok.kind != ")":
            while True:
                if self.tok.kind in (",", ")"):
                    args.append(None)
                else:
                    args.append(self.expression())
                if not self.accept(","):
                    break
        self.expect(")", "')' to close the argument list")
        return ast.Call(tok, name, args, direct)

    def strcpy(self) -> ast.StrCpy:
        tok = self.advance()
        self.expect("(")
        kind = self.tok
        if kind.kind != "ident" or kind.value != "a":
            raise self.unexpected("a: and the array to copy into")
        self.advance()
        self.expect(":")
        dest = self.char_range(kind)
        self.expect(",", "',' and the string to copy")
        source = self.expression()
        offset = self.expression() if self.accept(",") else None
        self.expect(")")
        return ast.StrCpy(tok, dest, source, offset)
