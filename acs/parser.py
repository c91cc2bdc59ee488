"""Recursive-descent parser: token stream to syntax tree, with acc's grammar and operator precedence."""

from __future__ import annotations

from . import ast
from .format import SCRIPT_FLAGS, SCRIPT_TYPES, UNSUPPORTED_SCRIPT_TYPES
from .lexer import Tokens

# Binary operators by precedence, loosest first (acc's parse.c levels B to K; the ternary is level A).
_BINARY_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
                  ("<<", ">>"), ("+", "-"), ("*", "/", "%"))
_PRECEDENCE = {op: level for level, ops in enumerate(_BINARY_LEVELS) for op in ops}
_PREFIX_OPS = frozenset(("-", "!", "~", "+"))  # unary operators; any other token starts a primary
_ASSIGN_OPS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>="))
# Tokens after which a number or name is a whole expression (no operator, call, index or ++/-- follows).
_LEAF_ENDS = frozenset((",", ")", ";", "]", ":", "}"))
# Words that may follow a script's number and arguments (the checker refuses the unsupported ones).
_SCRIPT_TYPE_WORDS = frozenset(SCRIPT_TYPES).union(UNSUPPORTED_SCRIPT_TYPES) - {"closed"}
VAR_TYPES = ("int", "str", "bool")
PRINT_KINDS = frozenset("sldicnfkbxa")
MAX_NESTING = 200  # statements and parenthesised expressions; keeps every pass well inside Python's stack
_DIRECTIVES = "#define, #libdefine, #include, #import, #library, #nocompact, #wadauthor, #nowadauthor, " \
              "#encryptstrings, #region, #endregion"


def parse(tokens: Tokens) -> ast.Program:
    """The syntax tree of a token stream (preprocess's output)."""
    return Parser(tokens).program()


class Parser:
    """Holds the token stream and the position in it; ``program()`` returns the file's ast.Program.

    With ``importing`` it reads a library the way acc's #import does: declarations only, skipping function
    bodies, scripts, special declarations and the initial values of map variables (arrays' are read).
    """

    def __init__(self, tokens: Tokens, importing: bool = False):
        self.tokens = tokens
        self.kinds = tokens.kinds
        self.values = tokens.values
        self.texts = tokens.texts
        self.last = len(self.kinds) - 1  # the eof token
        self.pos = 0
        self.kind = self.kinds[0]
        self.importing = importing
        self.nesting = 0
        self.names_only = False  # a script number: NAME ( is a constant then the argument list

    # ---- token helpers -------------------------------------------------------------------------

    def advance(self) -> int:
        """Step past the current token; returns its index."""
        at = self.pos
        if at < self.last:
            self.pos = at + 1
            self.kind = self.kinds[at + 1]
        return at

    def peek(self, ahead: int = 1) -> str:
        return self.kinds[min(self.pos + ahead, self.last)]

    def accept(self, kind: str) -> bool:
        if self.kind == kind:
            at = self.pos + 1      # not eof (nothing accepts eof), so there is a next token
            self.pos = at
            self.kind = self.kinds[at]
            return True
        return False

    def expect(self, kind: str, what: str | None = None) -> int:
        at = self.pos
        if self.kind == kind:
            self.pos = at + 1      # as in accept: the expected token is never eof
            self.kind = self.kinds[at + 1]
            return at
        raise self.unexpected(what or f"'{kind}'")

    def error(self, at: int, message: str):
        return self.tokens.error(at, message)

    def unexpected(self, wanted: str):
        found = "end of file" if self.kind == "eof" else f"'{self.texts[self.pos]}'"
        return self.error(self.pos, f"expected {wanted}, found {found}")

    def ident(self, what: str = "a name") -> int:
        if self.kind == "ident":
            return self.advance()
        if self.kind not in ("eof", "number", "string") and self.texts[self.pos][:1].isalpha():
            raise self.error(self.pos, f"'{self.texts[self.pos]}' is a reserved word and cannot be used as {what}")
        raise self.unexpected(what)

    def enter(self, at: int) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise self.error(at, f"nested more than {MAX_NESTING} levels deep")

    def leave(self) -> None:
        self.nesting -= 1

    # ---- top level -----------------------------------------------------------------------------

    def program(self) -> ast.Program:
        first = self.pos
        items: list[ast.Node] = []
        append = items.append
        while self.kind != "eof":
            kind = self.kind
            if kind == "script":
                if self.importing:
                    self.skip_script()
                else:
                    append(self.script())
            elif kind == "function":
                append(self.function())
            elif kind in VAR_TYPES:
                at = self.advance()
                append(ast.MapVarDecl(at, kind, self.declarators(allow_code=False)))
            elif kind in ("world", "global"):
                append(self.world_declaration())
            elif kind == "special":
                if self.importing:
                    self.skip_past(";")
                else:
                    items.extend(self.special_declaration())
            elif kind == "#":
                item = self.directive()
                if item is not None:
                    append(item)
            elif kind == "builtin":
                at = self.advance()
                append(ast.Directive(at, "include", self.values[at]))
            elif kind == "import":
                append(self.library_import())
            elif kind == ";":
                self.advance()
            else:
                raise self.unexpected("a script, a function or a declaration")
        return ast.Program(first, items, self.tokens)

    def directive(self) -> ast.Node | None:
        hash_at = self.advance()
        at = self.pos
        kind = self.kind
        if kind in ("define", "libdefine"):
            self.advance()
            name = self.ident("a constant name")
            return ast.Define(name, self.values[name], self.expression(), exported=kind == "libdefine")
        if kind in ("nocompact", "wadauthor", "nowadauthor", "encryptstrings"):
            self.advance()
            return ast.Directive(at, kind)
        if kind == "library":
            self.advance()
            name = self.expect("string", "the library's name in double quotes")
            return ast.Directive(at, "library", self.values[name])
        if kind in ("region", "endregion"):
            self.advance()
            self.skip_line(at)
            return None
        raise self.error(hash_at, f"unknown directive '#{self.texts[at]}' (known: {_DIRECTIVES})")

    def library_import(self) -> ast.Import:
        at = self.advance()
        imported = self.values[at]
        return ast.Import(at, imported.path, Parser(imported.tokens, importing=True).program())

    def skip_line(self, at: int) -> None:
        """Skip the tokens on the rest of the line of token ``at`` (in its own file)."""
        source, offset = self.tokens.position(at)
        line_end = source.text.find("\n", offset)
        if line_end < 0:
            line_end = len(source.text)
        while self.kind != "eof":
            here, where = self.tokens.position(self.pos)
            if here is not source or where >= line_end:
                return
            self.advance()

    def skip_past(self, kind: str) -> None:
        while self.kind != kind and self.kind != "eof":
            self.advance()
        self.advance()

    def skip_braces(self) -> int:
        """acc's SkipBraceBlock: on to the first '{', then past its matching '}'; returns that '}'."""
        while self.kind != "{":
            if self.kind == "eof":
                raise self.unexpected("'{'")
            self.advance()
        depth = 0
        while True:
            if self.kind == "{":
                depth += 1
            elif self.kind == "}":
                depth -= 1
                if depth == 0:
                    return self.advance()
            elif self.kind == "eof":
                raise self.unexpected("'}'")
            self.advance()

    def skip_script(self) -> None:
        """A script in a library being imported: acc skips it whole, number and all."""
        self.advance()
        self.skip_braces()

    def script(self) -> ast.ScriptDef:
        at = self.advance()
        number: ast.Expr | None = None
        name: str | None = None
        explicit_zero = self.kind == "<<"
        if explicit_zero:
            self.advance()
            zero = self.expect("number", "0 in <<0>>")
            if self.values[zero] != 0:
                raise self.error(zero, "only script 0 is written as <<0>>")
            self.expect(">>", "'>>' closing <<0>>")
            number = ast.Number(zero, 0)
        elif self.kind == "string":
            name_at = self.advance()
            name = self.values[name_at]
            if name.lower() == "none":
                raise self.error(name_at, 'a script cannot be named "None"')
        else:
            self.names_only = True
            number = self.expression()
            self.names_only = False
        params: list[ast.Param] = []
        kind = "closed"
        parenthesized = self.accept("(")
        if parenthesized:
            if not self.accept("void"):
                params = self.parameters(allow_array=False)
            self.expect(")")
        if self.kind in _SCRIPT_TYPE_WORDS:
            kind = self.kind
            self.advance()
        flags = 0
        for word, bit in SCRIPT_FLAGS.items():
            if self.accept(word):
                flags |= bit
        self.enter(at)
        body = self.statement()
        self.leave()
        return ast.ScriptDef(at, number, name, params, kind, flags, body, self.pos - 1, explicit_zero, parenthesized)

    def parameters(self, allow_array: bool) -> list[ast.Param]:
        params = []
        while True:
            if self.kind not in VAR_TYPES:
                raise self.unexpected("a parameter type (int, str or bool)")
            type_ = self.kind
            self.advance()
            if allow_array and self.kind == "[":
                raise self.error(self.pos, "array parameters (int[] name) are not supported")
            name = self.ident("a parameter name")
            params.append(ast.Param(name, type_, self.values[name]))
            if not self.accept(","):
                return params

    def function(self) -> ast.FunctionDef:
        self.advance()  # "function"
        if self.kind not in ("void", "int", "str", "bool"):
            raise self.unexpected("a return type (void, int, str or bool)")
        return_type = self.kind
        self.advance()
        name = self.ident("a function name")
        self.expect("(")
        params: list[ast.Param] = []
        if not self.accept("void") and self.kind != ")":
            params = self.parameters(allow_array=True)
        self.expect(")")
        if self.importing:
            end = self.skip_braces()
            return ast.FunctionDef(name, return_type, self.values[name], params, None, end)
        self.expect("{", "'{' to open the function body")
        body = []
        while self.kind != "}":
            if self.kind == "eof":
                raise self.unexpected(f"'}}' to close function {self.texts[name]}")
            body.append(self.statement())
        end = self.advance()
        return ast.FunctionDef(name, return_type, self.values[name], params, body, end)

    def declarators(self, allow_code: bool) -> list[ast.Declarator]:
        """The names of one declaration, through its ';'. Local (``allow_code``) initializers may be any expression."""
        items = []
        while True:
            name = self.ident("a variable name")
            dims = None
            init = None
            if self.kind == "[":
                dims = []
                while self.kind == "[":
                    bracket = self.advance()
                    if self.kind == "]":
                        raise self.error(bracket, f"array '{self.texts[name]}' needs a size here")
                    dims.append(self.expression())
                    self.expect("]")
                if self.accept("="):
                    if self.kind != "{":
                        raise self.unexpected("'{' to start the array's initializer")
                    init = self.array_init()
            elif self.accept("="):
                if self.importing:
                    # acc does not read an imported map variable's initial value: it skips to ',' or ';'.
                    while self.kind not in (",", ";", "eof"):
                        self.advance()
                else:
                    init = self.expression()
            items.append(ast.Declarator(name, self.values[name], dims, init))
            if not self.accept(","):
                break
        self.expect(";", "';' after the declaration")
        return items

    def array_init(self) -> ast.ArrayInit:
        at = self.expect("{")
        self.enter(at)
        items: list = []
        while self.kind != "}":
            if self.kind == ",":
                self.advance()
                items.append(None)
                continue
            items.append(self.array_init() if self.kind == "{" else self.expression())
            if self.kind != "}":
                self.expect(",", "',' or '}' in the array initializer")
        self.advance()
        self.leave()
        return ast.ArrayInit(at, items)

    def world_declaration(self) -> ast.WorldVarDecl:
        scope_at = self.advance()
        scope = self.kinds[scope_at]
        if self.kind not in VAR_TYPES:
            raise self.unexpected("a variable type (int, str or bool)")
        type_ = self.kind
        self.advance()
        variables = []
        while True:
            index = self.primary_constant("the variable's number")
            if self.kind != ":":
                raise self.unexpected(f"':' between the {scope} variable's number and its name")
            self.advance()
            name = self.ident("a variable name")
            is_array = False
            if self.kind == "[":
                self.advance()
                if self.kind != "]":
                    raise self.error(self.pos, f"{scope} arrays take no size: write {self.texts[name]}[]")
                self.advance()
                if self.kind == "[":
                    raise self.error(self.pos, f"{scope} arrays have one dimension")
                is_array = True
            variables.append(ast.WorldVar(name, index, self.values[name], is_array))
            if not self.accept(","):
                break
        self.expect(";", "';' after the declaration")
        return ast.WorldVarDecl(scope_at, scope, type_, variables)

    def primary_constant(self, what: str) -> ast.Expr:
        at = self.pos
        if self.kind == "number":
            self.advance()
            return ast.Number(at, self.values[at])
        if self.kind == "ident":
            self.advance()
            return ast.Name(at, self.values[at])
        raise self.unexpected(what)

    def special_declaration(self) -> list[ast.SpecialDef]:
        self.advance()
        specials = []
        while True:
            negative = self.accept("-")
            number = self.expect("number", "the special's number")
            self.expect(":")
            name = self.ident("the special's name")
            self.expect("(")
            low = self.values[self.expect("number", "the special's argument count")]
            high = low
            if self.accept(","):
                high = self.values[self.expect("number", "the special's maximum argument count")]
            self.expect(")")
            value = -self.values[number] if negative else self.values[number]
            specials.append(ast.SpecialDef(name, self.values[name], value, low, high))
            if not self.accept(","):
                break
        self.expect(";", "';' after the special declaration")
        return specials

    # ---- statements ----------------------------------------------------------------------------

    def statement(self) -> ast.Stmt:
        kind = self.kind
        if kind == "ident":
            return self.simple_statement(";")
        handler = self._STATEMENTS.get(kind)
        if handler is None:
            raise self.unexpected("a statement")
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise self.error(self.pos, f"nested more than {MAX_NESTING} levels deep")
        result = handler(self)
        self.nesting -= 1
        return result

    def compound(self) -> ast.Compound:
        at = self.advance()
        body = []
        append = body.append
        statement = self.statement
        while self.kind != "}":
            if self.kind == "eof":
                raise self.error(at, "this '{' is never closed")
            append(statement())
        self.pos += 1  # past the '}' (never eof)
        self.kind = self.kinds[self.pos]
        return ast.Compound(at, body)

    def empty(self) -> ast.Empty:
        return ast.Empty(self.advance())

    def local_declaration(self) -> ast.VarDecl:
        at = self.advance()
        static = self.kinds[at] == "static"
        type_ = self.kinds[at]
        if static:
            if self.kind not in VAR_TYPES:
                raise self.unexpected("a variable type after 'static'")
            type_ = self.kind
            self.advance()
        return ast.VarDecl(at, type_, self.declarators(allow_code=not static), static)

    def simple_statement(self, end: str = ";") -> ast.Stmt:
        """Assignments, ++/--, or a call, ended by ``end`` (';', or ')' for a for-loop's step)."""
        at = self.pos
        if self.kind == "ident" and self.kinds[at + 1] == "(":
            call = self.call()
            self.end_with(end, "call")
            return ast.ExprStatement(at, call)
        items: list[ast.Stmt] = []
        while True:
            items.append(self.assignment())
            if not self.accept(","):
                break
        self.end_with(end, "statement")
        return items[0] if len(items) == 1 else ast.StatementList(at, items)

    def end_with(self, end: str, what: str) -> None:
        """Step past ``end`` (the ';' or ')' closing a statement), which must come next."""
        at = self.pos
        if self.kind != end:
            raise self.unexpected(f"'{end}' after the {what}")
        self.pos = at + 1      # never eof, as in expect
        self.kind = self.kinds[at + 1]

    def assignment(self) -> ast.Stmt:
        at = self.pos
        if self.kind in ("++", "--"):
            op = self.kind
            self.advance()
            return ast.IncDecStatement(at, op, self.lvalue())
        target = self.lvalue()
        op_at = self.pos
        op = self.kind
        if op in ("++", "--"):
            self.advance()
            return ast.IncDecStatement(op_at, op, target)
        if op not in _ASSIGN_OPS:
            raise self.unexpected(f"an assignment operator after '{self.texts[target.at]}'")
        self.advance()
        return ast.Assign(op_at, target, op, self.expression())

    def lvalue(self) -> ast.Expr:
        at = self.pos
        if self.kind != "ident":
            self.ident("a variable")  # raises
        following = self.kind = self.kinds[at + 1]  # a name is never the last token
        self.pos = at + 1
        base = ast.Name(at, self.values[at])
        return self.subscripts(base) if following == "[" else base

    def subscripts(self, base: ast.Name) -> ast.Expr:
        indices = []
        kinds = self.kinds
        while self.kind == "[":
            self.pos += 1  # past the '[' (never eof)
            self.kind = kinds[self.pos]
            indices.append(self.expression())
            self.expect("]")
        return ast.Subscript(base.at, base, indices)

    def print_statement(self) -> ast.Print:
        at = self.advance()
        self.expect("(")
        items = self.print_items()
        self.expect(")", "')' to end the print")
        self.expect(";")
        return ast.Print(at, self.kinds[at], items)

    def print_items(self) -> list[ast.PrintItem]:
        items = []
        while True:
            kind_at = self.pos
            kind = self.values[kind_at] if self.kind == "ident" else ""
            if len(kind) != 1 or kind not in PRINT_KINDS:
                raise self.unexpected("a print item such as s:\"text\", d:number or f:fixed "
                                      "(kinds: s l d i c n f k b x a)")
            if self.kinds[kind_at + 1] != ":":
                self.advance()
                raise self.unexpected(f"':' after the print kind '{self.texts[kind_at]}'")
            self.pos = kind_at + 2     # past the kind and ':' (neither is eof)
            self.kind = self.kinds[kind_at + 2]
            value = self.char_range(kind_at) if kind == "a" else self.expression()
            items.append(ast.PrintItem(kind_at, kind, value))
            if self.kind != ",":
                return items
            self.pos += 1  # past the ',' (never eof)
            self.kind = self.kinds[self.pos]

    def char_range(self, at: int) -> ast.CharRange:
        ranged = self.accept("(")
        array = self.lvalue()
        start = length = None
        if ranged:
            if self.accept(","):
                start = self.expression()
                if self.accept(","):
                    length = self.expression()
            self.expect(")")
            ranged = start is not None
        return ast.CharRange(at, array, start, length, ranged)

    def hudmessage(self) -> ast.HudMessage:
        at = self.advance()
        self.expect("(")
        items = self.print_items()
        self.expect(";", "';' between the HudMessage text and its type, id, color, x, y and hold time")
        args = [self.expression()]
        while self.accept(","):
            args.append(self.expression())
        if len(args) < 6:
            raise self.error(self.pos, f"HudMessage needs type, id, color, x, y and hold time after the ';' "
                                       f"(got {len(args)} value{'s' if len(args) != 1 else ''})")
        self.expect(")")
        self.expect(";")
        return ast.HudMessage(at, self.kinds[at] == "hudmessagebold", items, args)

    def expr_statement(self) -> ast.ExprStatement:
        at = self.pos
        expr = self.primary()
        self.expect(";")
        return ast.ExprStatement(at, expr)

    def execute_wait(self) -> ast.ExecuteWait:
        at = self.advance()
        call = self.call_arguments(at, self.values[at])
        self.expect(";")
        return ast.ExecuteWait(at, call, self.kinds[at] == "acs_namedexecutewait")

    def if_statement(self) -> ast.If:
        at = self.advance()
        cond = self.condition()
        then = self.statement()
        other = self.statement() if self.accept("else") else None
        return ast.If(at, cond, then, other)

    def condition(self) -> ast.Expr:
        self.expect("(")
        expr = self.expression()
        self.expect(")")
        return expr

    def while_statement(self) -> ast.While:
        at = self.advance()
        cond = self.condition()
        return ast.While(at, self.kinds[at] == "until", cond, self.statement())

    def do_statement(self) -> ast.DoWhile:
        at = self.advance()
        body = self.statement()
        if self.kind not in ("while", "until"):
            raise self.unexpected("'while' or 'until' after the do statement")
        until = self.kind == "until"
        self.advance()
        cond = self.condition()
        self.expect(";")
        return ast.DoWhile(at, until, body, cond)

    def for_statement(self) -> ast.For:
        at = self.advance()
        self.expect("(")
        init = None if self.accept(";") else self.statement()
        cond = None if self.kind == ";" else self.expression()
        self.expect(";", "';' after the for loop's condition")
        step = None if self.accept(")") else self.simple_statement(")")
        return ast.For(at, init, cond, step, self.statement())

    def switch_statement(self) -> ast.Switch:
        at = self.advance()
        expr = self.condition()
        return ast.Switch(at, expr, self.statement())

    def case_label(self) -> ast.Case:
        at = self.advance()
        if self.kinds[at] == "default":
            self.expect(":", "':' after default")
            return ast.Case(at, None)
        value = self.expression()
        self.expect(":", "':' after the case value")
        return ast.Case(at, value)

    def jump(self) -> ast.Jump:
        at = self.advance()
        if self.kind != ";":
            raise self.unexpected(f"';' after {self.kinds[at]}")
        self.advance()
        return ast.Jump(at, self.kinds[at])

    def return_statement(self) -> ast.Return:
        at = self.advance()
        value = None if self.kind == ";" else self.expression()
        self.expect(";", "';' after return")
        return ast.Return(at, value)

    def create_translation(self) -> ast.CreateTranslation:
        at = self.advance()
        self.expect("(")
        number = self.expression()
        ranges = []
        while self.accept(","):
            range_at = self.pos
            operands = [self.expression()]
            self.expect(":", "':' in the translation's source range")
            operands.append(self.expression())
            self.expect("=", "'=' in the translation range")
            if self.accept("#"):  # acc's TRANSLATIONRANGE4: source range = #[r, g, b]
                ranges.append(ast.TranslationRange(range_at, "colourise", operands + self.colour()))
                continue
            if self.accept("@"):  # TRANSLATIONRANGE5: source range = @amount[r, g, b]
                operands.append(self.expression())
                ranges.append(ast.TranslationRange(range_at, "tint", operands + self.colour()))
                continue
            if self.accept("%"):
                kind = "desat"
            elif self.kind == "[":
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
            ranges.append(ast.TranslationRange(range_at, kind, operands))
        self.expect(")")
        self.expect(";")
        return ast.CreateTranslation(at, number, ranges)

    def colour(self) -> list[ast.Expr]:
        self.expect("[", "'[' to start a colour")
        parts = [self.expression()]
        for _ in range(2):
            self.expect(",")
            parts.append(self.expression())
        self.expect("]")
        return parts

    def misplaced(self):
        if self.kind == "else":
            raise self.error(self.pos, "'else' without a matching 'if'")
        raise self.error(self.pos, f"'{self.texts[self.pos]}' cannot start a statement")

    _STATEMENTS = {
        "{": compound, ";": empty,
        "int": local_declaration, "str": local_declaration, "bool": local_declaration,
        "static": local_declaration,
        "++": simple_statement, "--": simple_statement,
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
        kind = self.kind
        if kind == "number" or kind == "ident":  # a lone number or name (most arguments): no further call
            at = self.pos
            following = self.kinds[at + 1]  # never eof here: eof is the last token
            if following in _LEAF_ENDS:
                self.pos = at + 1
                self.kind = following
                return ast.Number(at, self.values[at]) if kind == "number" else ast.Name(at, self.values[at])
        left = self.unary() if kind in _PREFIX_OPS else self.primary()
        kind = self.kind
        if kind in _PRECEDENCE:
            left = self.binary(left, 0)
            kind = self.kind
        if kind != "?":
            return left
        at = self.advance()
        self.enter(at)
        then = self.expression()
        self.expect(":", "':' in the ?: expression")
        other = self.expression()
        self.leave()
        return ast.Ternary(at, left, then, other)

    def binary(self, left: ast.Expr, min_level: int) -> ast.Expr:
        """Precedence climbing over acc's levels from the operand ``left``: operators of one level associate
        to the left; a tighter operator after the right operand takes it as its own left operand."""
        precedence = _PRECEDENCE
        kinds = self.kinds
        level = precedence.get(self.kind)
        while level is not None and level >= min_level:
            op = self.kind
            at = self.pos  # an operator is never the last token
            self.pos = at + 1
            kind = self.kind = kinds[at + 1]
            if kind == "number":  # the commonest right operand, read here without a call
                self.pos = at + 2
                self.kind = kinds[at + 2]
                right = ast.Number(at + 1, self.values[at + 1])
            else:
                right = self.unary() if kind in _PREFIX_OPS else self.primary()
            tighter = precedence.get(self.kind)
            if tighter is not None and tighter > level:
                right = self.binary(right, level + 1)
            left = ast.Binary(at, op, left, right)
            level = precedence.get(self.kind)
        return left

    def unary(self) -> ast.Expr:
        kind = self.kind
        if kind in _PREFIX_OPS:
            at = self.advance()
            self.enter(at)
            operand = self.unary()
            self.leave()
            return operand if kind == "+" else ast.Unary(at, kind, operand)
        return self.primary()

    def primary(self) -> ast.Expr:
        at = self.pos
        kind = self.kind
        kinds = self.kinds
        if kind == "number":
            self.pos = at + 1      # a number is never the last token: eof is
            self.kind = kinds[at + 1]
            return ast.Number(at, self.values[at])
        if kind == "ident":
            following = kinds[at + 1]
            if following == "(" and not self.names_only:
                return self.call()
            self.pos = at + 1
            self.kind = following
            target = ast.Name(at, self.values[at])
            if following == "[":
                target = self.subscripts(target)
            if self.kind in ("++", "--"):
                op = self.kind
                return ast.IncDec(self.advance(), op, target, prefix=False)
            return target
        if kind == "string":
            self.pos = at + 1      # as for a number
            self.kind = kinds[at + 1]
            return ast.String(at, self.values[at])
        if kind == "(":
            self.advance()
            self.enter(at)
            inner = self.expression()
            self.leave()
            self.expect(")", "')' to close '('")
            return inner
        if kind in ("++", "--"):
            self.advance()
            return ast.IncDec(at, kind, self.lvalue(), prefix=True)
        if kind == "strparam":
            self.advance()
            self.expect("(")
            items = self.print_items()
            self.expect(")")
            return ast.StrParam(at, items)
        if kind == "strcpy":
            return self.strcpy()
        if kind == "morphactor":
            self.advance()
            return ast.MorphActor(at, self.call_arguments(at, "morphactor").args)
        raise self.unexpected("an expression")

    def call(self) -> ast.Call:
        """A call at a name that is followed by '('."""
        at = self.pos
        self.pos = at + 2
        self.kind = self.kinds[at + 2]
        return self.arguments(at, self.values[at])

    def call_arguments(self, at: int, name: str) -> ast.Call:
        self.expect("(")
        return self.arguments(at, name)

    def arguments(self, at: int, name: str) -> ast.Call:
        """The arguments of a call (after its '('), through the ')'."""
        direct = False
        if self.kind == "const":
            self.advance()
            self.expect(":", "':' after const")
            direct = True
        args: list = []
        if self.kind != ")":
            expression = self.expression
            kinds = self.kinds
            while True:
                if self.kind in (",", ")"):
                    args.append(None)
                else:
                    args.append(expression())
                if self.kind != ",":
                    break
                self.pos += 1  # past the ',' (never the last token)
                self.kind = kinds[self.pos]
        if self.kind != ")":
            raise self.unexpected("')' to close the argument list")
        self.advance()
        return ast.Call(at, name, args, direct)

    def strcpy(self) -> ast.StrCpy:
        at = self.advance()
        self.expect("(")
        if self.kind != "ident" or self.values[self.pos] != "a":
            raise self.unexpected("a: and the array to copy into")
        kind_at = self.advance()
        self.expect(":")
        dest = self.char_range(kind_at)
        self.expect(",", "',' and the string to copy")
        source = self.expression()
        offset = self.expression() if self.accept(",") else None
        self.expect(")")
        return ast.StrCpy(at, dest, source, offset)
