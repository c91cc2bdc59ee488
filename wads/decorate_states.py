"""DECORATE state blocks and expressions in the grammar this engine's parser accepts, checked before a WAD
is written: vizdoom segfaults at init() on a frame line, action call or expression it cannot parse.

A frame line is `SPRT FRAMES TICS [BRIGHT|FAST|SLOW|NODELAY|CANRAISE|OFFSET(x, y)|LIGHT("name", ...)]...
[Action | Action(arguments)]`, or one of `Stop`, `Loop`, `Wait`, `Fail`, `Goto Label[+n]`. Action functions,
their parameter types, the stock actors' state labels and the expression constants are read from the
engine's own vizdoom.pk3 (see wads.iwad).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from . import iwad

FLOW_KEYWORDS = ("stop", "loop", "wait", "fail", "goto")
FRAME_FORM = "'SPRT FRAMES TICS [BRIGHT ...] [Action(arguments)]', e.g. 'MEDI A -1' or 'TROO AB 10 A_Look'"
_SPRITE = re.compile(r'^("?)([A-Za-z0-9_]{4}|####|----)\1$')
_FRAMES = re.compile(r'^("?)([A-Za-z#]+)\1$')
_LABEL = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_DURATION = re.compile(r"\s*(-?\d+|random\s*\(\s*-?\d+\s*,\s*-?\d+\s*\))(?=\s|$)", re.IGNORECASE)
_LIGHT_NAME = r'(?:"[^"\x00-\x1f]*"|\w+)'
_OPTION = re.compile(rf"\s+(?:bright|fast|slow|nodelay|canraise|offset\s*\(\s*-?\d+\s*,\s*-?\d+\s*\)"
                     rf"|light\s*\(\s*{_LIGHT_NAME}(?:\s*,\s*{_LIGHT_NAME})*\s*\))(?=\s|$)", re.IGNORECASE)
_TOKEN = re.compile(r"""\s*(?:
    (?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>"[^"\\\x00-\x1f\x7f]*")
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>>>>|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~!<>?:(),\[\]]))""", re.VERBOSE)
_BINARY = {"||", "&&", "|", "^", "&", "==", "!=", "<", ">", "<=", ">=", "<<", ">>", ">>>", "+", "-", "*", "/", "%"}
_WHOLE_ONLY = {"|", "^", "&", "<<", ">>", ">>>", "~"}
# Expression functions: name -> (fewest, most) arguments; None: no limit. The random ones take [rng] too.
_FUNCTIONS = {"random": (2, 2), "frandom": (2, 2), "random2": (0, 1), "randompick": (1, None),
              "frandompick": (1, None), "abs": (1, 1), "sin": (1, 1), "cos": (1, 1), "sqrt": (1, 1)}
_FLOAT_FUNCTIONS = {"frandom", "frandompick", "sin", "cos", "sqrt"}
# Parameter kinds of action functions (the engine's letters): x int/bool, y float, s sound, t string/name,
# l state, c colour, m class; '+' repeats the one before.
_PARAMETER_KINDS = {"int": "x", "bool": "x", "float": "y", "sound": "s", "string": "t", "name": "t",
                    "state": "l", "color": "c", "class": "m"}
_KIND_WORDS = {"x": "a whole-number expression", "y": "a number expression", "s": 'a quoted sound name',
               "t": "a quoted string", "l": 'a quoted state label or a jump offset', "c": "a quoted colour",
               "m": "a quoted actor class name"}


@dataclass(frozen=True)
class Parameter:
    kind: str               # a key of _KIND_WORDS
    optional: bool
    class_name: str = ""    # for kind "m": the class the argument must inherit (class<Inventory>)


@dataclass(frozen=True)
class ActionFunction:
    name: str
    owners: tuple[str, ...]                 # classes whose descendants may call it (each declares it)
    parameters: tuple[Parameter, ...]
    varargs: bool = False                   # '...': the last parameter repeats
    signature: str = ""                     # as the engine declares it: 'A_Jump(int chance = 256, state label, ...)'


@dataclass(frozen=True)
class StockDefinitions:
    actions: Mapping[str, ActionFunction]           # lower-case name -> action function
    labels: Mapping[str, Mapping[str, int]]         # lower-case class -> its own labels (see label_extents)
    constants: Mapping[str, Mapping[str, str]]      # lower-case class ('' global) -> lower name -> 'int'/'float'
    variables: Mapping[str, Mapping[str, str]]      # lower-case class -> lower member name -> 'int'/'float'


@functools.cache
def stock_definitions() -> StockDefinitions:
    """Action functions, state labels, constants and member variables of the engine's DECORATE."""
    actions, labels, constants, variables = {}, {}, {"": {}}, {}
    for text in iwad.engine_texts()[0]:
        in_bodies = set()
        for header, body in iwad.actor_bodies(text):
            owner = header.group(1)
            for match in re.finditer(r"\baction\s+native\s+(\w+)\s*\(([^)]*)\)", body, re.IGNORECASE):
                action = _parse_action(match.group(1), owner, match.group(2))
                known = actions.get(action.name.lower())
                owners = (known.owners if known else ()) + action.owners
                actions[action.name.lower()] = dataclasses.replace(known or action, owners=owners)
            labels[owner.lower()] = _stock_labels(body)
            constants[owner.lower()] = _constants(body)
            variables[owner.lower()] = {name.lower(): _number_type(kind) for kind, name in
                                        re.findall(r"^\s*native\s+(\w+)\s+(\w+)\s*;", body, re.M | re.I)}
            in_bodies.update(constants[owner.lower()])
        constants[""].update({k: v for k, v in _constants(text).items() if k not in in_bodies})
    return StockDefinitions(actions, labels, constants, variables)


def _parse_action(name: str, owner: str, text: str) -> ActionFunction:
    parameters, varargs = [], False
    for declaration in filter(None, (part.strip() for part in text.split(","))):
        if declaration == "...":
            varargs = True
            continue
        match = re.match(r"(?:(?:coerce|native)\s+)*(class\s*<\s*(\w+)\s*>|\w+)", declaration, re.IGNORECASE)
        type_name = match.group(1).lower()
        kind = "m" if type_name.startswith("class") else _PARAMETER_KINDS.get(type_name, "x")
        parameters.append(Parameter(kind, "=" in declaration, match.group(2) or ""))
    signature = f"{name}({', '.join(' '.join(p.split()) for p in text.split(',') if p.strip())})"
    return ActionFunction(name, (owner,), tuple(parameters), varargs, signature)


def _stock_labels(body: str) -> dict[str, int]:
    block = re.search(r"\bstates\s*\{", body, re.IGNORECASE)
    return label_extents(body[block.end():].splitlines()) if block else {}


def label_extents(lines: Sequence[str]) -> dict[str, int]:
    """Lower-case state label -> how many states there are from it to the end of the block, for the lines of
    a States block ('Label:' prefixes, frame lines; lines that are neither count nothing)."""
    starts, count = {}, 0
    for line in lines:
        match = re.match(r"\s*([A-Za-z_][\w.]*)\s*:(?!:)", line)
        while match:
            starts[match.group(1).lower()] = count
            line = line[match.end():]
            match = re.match(r"\s*([A-Za-z_][\w.]*)\s*:(?!:)", line)
        words = line.split()
        if len(words) >= 3 and _SPRITE.match(words[0]) and _FRAMES.match(words[1]):
            count += len(words[1].strip('"'))
    return {label: count - start for label, start in starts.items() if label not in FLOW_KEYWORDS}


def _constants(text: str) -> dict[str, str]:
    found = {name.lower(): _number_type(kind) for kind, name in re.findall(r"\bconst\s+(\w+)\s+(\w+)\s*=", text, re.I)}
    for block in re.findall(r"\benum\s*\{([^}]*)\}", text, re.IGNORECASE):
        found.update({name.lower(): "int" for name in re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", block)})
    return found


def _number_type(declared: str) -> str:
    return "int" if declared.lower() in ("int", "bool") else "float"


def action_functions(class_name: str) -> list[str]:
    """The signatures of the action functions an actor inheriting the stock class `class_name` may call."""
    if class_name.lower() not in iwad.stock_actors():
        names = [a.name for a in iwad.stock_actors().values()]
        raise ValueError(f"unknown stock actor class {class_name!r}{iwad.suggest(class_name, names)}")
    return sorted(a.signature for a in _callable(iwad.ancestry(class_name)).values())


def _callable(chain: Sequence[str]) -> dict[str, ActionFunction]:
    """The action functions an actor whose class and ancestors are `chain` may call, by lower-case name."""
    lower = {c.lower() for c in chain}
    return {k: a for k, a in stock_definitions().actions.items() if any(o.lower() in lower for o in a.owners)}


def _has_control_character(text: str) -> bool:
    """Control characters other than tab (whitespace between the words of a line)."""
    return any((ord(ch) < 32 and ch != "\t") or ord(ch) == 127 for ch in text)


# --- expressions ---------------------------------------------------------------------------------

def tokenize(text: str) -> list[tuple[str, str]] | str:
    """(kind, text) tokens of a DECORATE expression or argument list, or why it cannot be one."""
    if _has_control_character(text):
        return "contains a control character (a line break); DECORATE reads one state per line"
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            rest = text[position:].lstrip()
            if rest.startswith('"'):
                return f"has an unterminated string, or a '\"' or '\\' inside one, at {rest!r}"
            return f"has an unexpected character {rest[0]!r} at {rest!r}"
        kind = match.lastgroup
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Reads tokens of a frame line or an expression. `check` is a recursive-descent check of the engine's
    expression grammar (thingdef_exp.cpp): numbers, true/false, constants, member variables, the
    random/abs/sin/cos/sqrt functions, unary and binary operators, ?:."""

    def __init__(self, tokens: list[tuple[str, str]], names: Mapping[str, str]):
        self.tokens, self.names, self.position = tokens, names, 0

    def check(self) -> str | None:
        """Why the tokens are not one whole expression, or None."""
        try:
            self.ternary()
            if self.position < len(self.tokens):
                raise _Refused(f"has {self.tokens[self.position][1]!r} where the expression should end")
        except _Refused as refused:
            return str(refused)
        return None

    def peek(self) -> str | None:
        return self.tokens[self.position][1] if self.position < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.position >= len(self.tokens):
            raise _Refused("ends too early" + (f": {expected!r} missing" if expected else ""))
        token = self.tokens[self.position]
        if expected is not None and token[1].lower() != expected:
            raise _Refused(f"has {token[1]!r} where {expected!r} belongs")
        self.position += 1
        return token

    def ternary(self) -> str:
        kind = self.binary()
        if self.peek() == "?":
            self.take()
            first = self.ternary()
            self.take(":")
            return "float" if "float" in (first, self.ternary()) else "int"
        return kind

    def binary(self) -> str:
        kind = self.unary()
        while self.peek() in _BINARY:
            operator = self.take()[1]
            if operator in ("/", "%") and self._zero_next():
                raise _Refused("divides by zero")
            right = self.unary()
            if operator in _WHOLE_ONLY and "float" in (kind, right):
                raise _Refused(f"uses {operator!r} on a fractional number; it takes whole numbers")
            kind = "float" if "float" in (kind, right) and operator not in ("==", "!=", "<", ">", "<=", ">=",
                                                                            "&&", "||") else "int"
        return kind

    def _zero_next(self) -> bool:
        if self.position >= len(self.tokens) or self.tokens[self.position][0] != "number":
            return False
        text = self.tokens[self.position][1]
        return (int(text, 16) if text.lower().startswith("0x") else float(text)) == 0

    def unary(self) -> str:
        if self.peek() in ("-", "+", "!", "~"):
            operator = self.take()[1]
            kind = self.primary()
            if operator == "~" and kind == "float":
                raise _Refused("uses '~' on a fractional number; it takes whole numbers")
            return "int" if operator == "!" else kind
        return self.primary()

    def primary(self) -> str:
        kind, text = self.take()
        lower = text.lower()
        if text == "(":
            inner = self.ternary()
            self.take(")")
            return inner
        if kind == "number":
            return "float" if re.search(r"[.eE]", text) and not text.lower().startswith("0x") else "int"
        if kind == "string":
            raise _Refused(f"has the string {text}, where a number belongs")
        if kind != "name":
            raise _Refused(f"has {text!r} where a number, a name or '(' belongs")
        if lower in ("true", "false"):
            return "int"
        if lower in _FUNCTIONS:
            return self.call(lower)
        if self.peek() == "(":
            raise _Refused(f"calls {text!r}, which is not an expression function "
                           f"({', '.join(sorted(_FUNCTIONS))})")
        if lower not in self.names:
            close = iwad.suggest(text, [n.upper() for n in self.names])
            raise _Refused(f"uses {text!r}, which is not a constant or member variable the engine knows{close}")
        return self.names[lower]

    def call(self, function: str) -> str:
        if function.endswith(("random", "randompick", "random2")) and self.peek() == "[":
            self.take()
            if self.take()[0] != "name":
                raise _Refused(f"{function}[...] takes a random-generator name")
            self.take("]")
        self.take("(")
        count = 0
        if self.peek() != ")":
            self.ternary()
            count = 1
            while self.peek() == ",":
                self.take()
                self.ternary()
                count += 1
        self.take(")")
        fewest, most = _FUNCTIONS[function]
        if count < fewest or (most is not None and count > most):
            wanted = str(fewest) if fewest == most else f"{fewest} or more" if most is None else f"{fewest} to {most}"
            raise _Refused(f"calls {function} with {count} arguments; it takes {wanted}")
        return "float" if function in _FLOAT_FUNCTIONS else "int"


class _Refused(Exception):
    pass


def expression_names(chain: Sequence[str] = ("Actor",)) -> dict[str, str]:
    """Lower-case identifiers an expression of an actor with class chain `chain` may use -> 'int'/'float'."""
    stock = stock_definitions()
    names = dict(stock.constants[""])
    for c in reversed([c.lower() for c in chain]):
        names.update(stock.variables.get(c, {}))
        names.update(stock.constants.get(c, {}))
    return names


def expression_problem(text: str, chain: Sequence[str] = ("Actor",)) -> str | None:
    """Why `text` is not an expression the engine evaluates for an actor of class chain `chain`, or None."""
    tokens = tokenize(text)
    if isinstance(tokens, str):
        return tokens
    if not tokens:
        return "is empty"
    return _Parser(tokens, expression_names(chain)).check()


# --- state blocks --------------------------------------------------------------------------------

@dataclass(frozen=True)
class StateContext:
    """What a state line of one actor may refer to."""

    chain: Sequence[str]                            # the actor's class and ancestors, nearest first
    labels_of: Callable[[str], Mapping[str, int]]   # class name -> label_extents of its labels, own and inherited
    class_chain: Callable[[str], list[str] | None]  # class name -> its chain, None if unknown
    own_labels: Mapping[str, int] = field(default_factory=dict)     # label_extents of the actor's own states


def state_lines(states: Mapping[str, Sequence[str]]) -> list[str]:
    """The States block's lines for `states`: each label, then its frame lines."""
    return [line for label, frames in states.items() for line in [f"{label}:", *frames]]


def check_states(states: Mapping[str, Sequence[str]], context: StateContext) -> str | None:
    """Why the engine would refuse `states` (label -> frame lines), or None. Messages name the label and line."""
    if not isinstance(states, Mapping):
        return "states must be a dict of label -> frame lines, e.g. {'Spawn': ['MEDI A -1', 'Stop']}"
    for label, lines in states.items():
        problem = _label_problem(label, lines)
        if problem:
            return problem
    context = dataclasses.replace(context, own_labels=label_extents(state_lines(states)))
    for label, lines in states.items():
        previous_frame = False
        for number, line in enumerate(lines, 1):
            problem = frame_problem(line, context, after_frame=previous_frame)
            if problem:
                return f"state {label!r} line {number} {line!r}: {problem}"
            previous_frame = line.split()[0].lower() not in FLOW_KEYWORDS
    return None


def _label_problem(label, lines) -> str | None:
    if not isinstance(label, str) or not _LABEL.match(label) or label.lower() in FLOW_KEYWORDS:
        return f"state label {label!r} is not a name (letters, digits, '_', parts joined by '.', not a keyword)"
    if isinstance(lines, str) or not isinstance(lines, Sequence) or not all(isinstance(l, str) for l in lines):
        return f"state {label!r}: give its frame lines as a list of strings, e.g. ['MEDI A -1', 'Stop']"
    if not lines:
        return f"state {label!r} has no frame lines; give at least one, e.g. ['MEDI A -1'] or ['Goto Spawn']"
    for number, line in enumerate(lines, 1):
        if not line.split():
            return f"state {label!r} line {number} is empty; a line is {FRAME_FORM}, or Stop, Loop, Goto Label"
    return None


def frame_problem(line: str, context: StateContext, after_frame: bool = True) -> str | None:
    """Why the engine would refuse one frame line, or None. `after_frame`: a frame line precedes it in its label."""
    if _has_control_character(line):
        return "contains a control character (a line break); DECORATE reads one state per line"
    words = line.split()
    keyword = words[0].lower()
    if keyword in FLOW_KEYWORDS:
        return _flow_problem(line, keyword, words, context, after_frame)
    if len(words) < 3:
        return f"a frame line is {FRAME_FORM}, or Stop, Loop, Wait, Fail, Goto Label[+n]"
    sprite, frames, rest = line.split(None, 2)
    problem = _sprite_problem(sprite, frames)
    if problem:
        return problem
    rest, problem = _duration_and_options(rest)
    if problem or not rest.strip():
        return problem
    tokens = tokenize(rest)
    if isinstance(tokens, str):
        return tokens
    return _action_problem(tokens, context, len(frames.strip('"')))


def _flow_problem(line, keyword, words, context, after_frame) -> str | None:
    if keyword != "goto":
        if len(words) > 1:
            return f"{words[0]} stands alone on its line"
        if keyword in ("loop", "wait", "fail") and not after_frame:
            return f"{words[0]} must follow a frame line of the same label"
        return None
    match = re.fullmatch(r"\s*goto\s+(?:(\w+)::)?([\w.]+)\s*(?:\+\s*(\d+))?\s*", line, re.IGNORECASE)
    if not match:
        return "write 'Goto Label', 'Goto Label+2' or 'Goto Super::Label'"
    return target_problem(match.group(1), match.group(2), int(match.group(3) or 0), context)


def target_problem(scope: str | None, label: str, offset: int, context: StateContext) -> str | None:
    """Why `[scope::]label[+offset]` names no state the actor has, or None."""
    chain = list(context.chain)
    parent = chain[1] if len(chain) > 1 else None
    if scope is None:
        known = {**(context.labels_of(parent) if parent else {}), **context.own_labels}
        where = "this actor or its ancestors"
    else:
        lower_chain = [c.lower() for c in chain]
        if scope.lower() == "super" and parent:
            where = parent
        elif scope.lower() in lower_chain[1:]:
            where = chain[lower_chain.index(scope.lower())]
        else:
            return (f"{scope!r} is not an ancestor of this actor ({' -> '.join(chain)}); "
                    "use Super:: or an ancestor's name")
        known = context.labels_of(where)
    remaining = known.get(label.lower())
    if remaining is None:
        return f"no state {label!r} in {where}{iwad.suggest(label, known)}"
    if offset >= remaining:
        return f"{label}+{offset} is past the last state: {label} has {remaining} states up to the end of its block"
    return None


def _sprite_problem(sprite: str, frames: str) -> str | None:
    match = _SPRITE.match(sprite)
    if not match:
        return f"sprite {sprite!r} must be exactly 4 letters or digits (or '####'); a frame line is {FRAME_FORM}"
    name = match.group(2).upper()
    if name not in ("####", "----") and name not in iwad.sprites():
        return f"unknown sprite {name!r}{iwad.suggest(name, iwad.sprites())}"
    if not _FRAMES.match(frames):
        return f"frames {frames!r} must be letters A-Z (or '#'), e.g. 'A' or 'ABCD'"
    return None


def _duration_and_options(rest: str) -> tuple[str, str | None]:
    """The text after the duration (TICS, -1 or random(MIN, MAX)) and the frame options (BRIGHT, FAST,
    OFFSET(x, y), LIGHT("name", ...) ...), or why they are malformed. The engine reads these numbers as
    words, so a minus sign is part of its number ('-1', never '- 1')."""
    duration = _DURATION.match(rest)
    if not duration:
        return rest, "the duration must be a whole number of tics, -1 (forever) or random(MIN, MAX)"
    if not duration.group(1).lower().startswith("random") and not -1 <= int(duration.group(1)) <= 32767:
        return rest, "the duration is -1 (forever) or 0 to 32767 tics"
    rest = rest[duration.end():]
    while True:
        option = _OPTION.match(rest)
        if option:
            rest = rest[option.end():]
            continue
        word = rest.split("(")[0].strip().lower()
        if word in ("offset", "light"):
            return rest, 'write OFFSET(X, Y) with whole numbers' if word == "offset" else \
                'write LIGHT("name"[, "name" ...])'
        return rest, None


def _action_problem(tokens, context: StateContext, frame_count: int) -> str | None:
    kind, name = tokens[0]
    if kind != "name":
        return f"{name!r} is not a frame option or an action function name"
    available = _callable(context.chain)
    action = available.get(name.lower())
    if action is None:
        elsewhere = stock_definitions().actions.get(name.lower())
        if elsewhere:
            return (f"action {name} belongs to actors inheriting {' or '.join(elsewhere.owners)}, "
                    f"and this one inherits {' -> '.join(context.chain)}")
        stock = next((c for c in context.chain if c.lower() in iwad.stock_actors()), "Actor")
        return (f"unknown action function or frame option {name!r}"
                f"{iwad.suggest(name, [a.name for a in available.values()])}; an actor inheriting {stock} may call "
                f"{len(available)}: wadgym.wads.decorate_states.action_functions({stock!r}) lists them (line "
                f"specials go through A_CallSpecial(number, args...), scripts through ACS_NamedExecute)")
    arguments = _split_arguments(tokens[1:])
    if isinstance(arguments, str):
        return f"{action.name}: {arguments}"
    return _arguments_problem(action, arguments, context, frame_count)


def _split_arguments(tokens) -> list[list[tuple[str, str]]] | str:
    """The comma-separated argument token lists of '(a, b)', [] when there is no call, or why not."""
    if not tokens:
        return []
    if tokens[0][1] != "(" or tokens[-1][1] != ")":
        return "arguments go in parentheses right after the name, and nothing follows them"
    arguments, current, depth = [], [], 0
    for token in tokens[1:-1]:
        if token[1] in ("(", "["):
            depth += 1
        elif token[1] in (")", "]"):
            depth -= 1
            if depth < 0:
                return "has unbalanced parentheses"
        if token[1] == "," and depth == 0:
            arguments.append(current)
            current = []
        else:
            current.append(token)
    if depth:
        return "has unbalanced parentheses"
    arguments.append(current)
    if any(not argument for argument in arguments):
        return "has an empty argument (the engine refuses '()': leave the parentheses out to pass nothing)"
    return arguments


def _arguments_problem(action: ActionFunction, arguments, context: StateContext, frame_count: int) -> str | None:
    """The engine fills parameters in order and stops early only before an optional one."""
    parameters = list(action.parameters)
    if not parameters and arguments:
        return f"{action.name} takes no arguments: write it without parentheses"
    if len(arguments) > len(parameters) and not action.varargs:
        return f"{action.name} takes at most {len(parameters)} arguments, got {len(arguments)}: {action.signature}"
    missing = [p for p in parameters[len(arguments):] if not p.optional]
    if missing:
        needed = len(parameters) - parameters[::-1].index(missing[-1])
        return f"{action.name} needs at least {needed} arguments, got {len(arguments)}: {action.signature}"
    for number, argument in enumerate(arguments, 1):
        parameter = parameters[min(number, len(parameters)) - 1]
        problem = _argument_problem(parameter, argument, context, frame_count)
        if problem:
            text = " ".join(t for _, t in argument)
            return f"{action.name} argument {number} ({text}): {problem}; {action.signature}"
    return None


def _argument_problem(parameter: Parameter, tokens, context: StateContext, frame_count: int) -> str | None:
    if parameter.kind in "xy":
        problem = _Parser(tokens, expression_names(context.chain)).check()
        if problem:
            return problem
        return None
    if parameter.kind == "l" and len(tokens) == 1 and tokens[0][0] == "number":
        if not tokens[0][1].isdigit():
            return "a jump offset is a whole number >= 0"
        if int(tokens[0][1]) > 0 and frame_count > 1:
            return "a jump offset needs a frame line with one frame letter (the engine's rule)"
        return None
    if len(tokens) != 1 or tokens[0][0] != "string":
        return f"takes {_KIND_WORDS[parameter.kind]} in double quotes"
    text = tokens[0][1][1:-1]
    if parameter.kind == "l":
        if text.lower() in ("", "none"):
            return None
        match = re.fullmatch(r"(?:(\w+)::)?([\w.]+)", text)
        if not match:
            return "a state label is 'Label', 'Label.Sub' or 'Super::Label'"
        return target_problem(match.group(1), match.group(2), 0, context)
    if parameter.kind == "m" and text.lower() not in ("", "none"):
        chain = context.class_chain(text)
        wanted = parameter.class_name or "Actor"
        if chain is None:
            return f"{text!r} names no actor class"
        if wanted.lower() not in {c.lower() for c in chain}:
            return f"{text!r} is not a kind of {wanted} ({' -> '.join(chain)})"
    return None
