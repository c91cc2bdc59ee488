"""The compiler's own structure: every syntax-tree node type is built by the parser and handled by the checker's
and the code generator's dispatch tables; each stage is a function of the one before."""

from __future__ import annotations

import inspect

from wadgym.acs import ast
from wadgym.acs.checks import Checker, Findings, check
from wadgym.acs.codegen import Generator, generate
from wadgym.acs.errors import Source
from wadgym.acs.fuzzing import SEED_SCRIPTS
from wadgym.acs.objfile import write_object
from wadgym.acs.parser import Parser, parse
from wadgym.acs.preprocessor import preprocess

NODE_TYPES = {cls for _, cls in inspect.getmembers(ast, inspect.isclass)
              if issubclass(cls, ast.Node) and cls not in (ast.Node, ast.Expr, ast.Stmt)}
# Parts of other nodes, handled by their owner's handler rather than dispatched on their own.
PARTS = {ast.PrintItem, ast.CharRange, ast.Declarator, ast.ArrayInit, ast.TranslationRange, ast.Param,
         ast.WorldVar, ast.Program}
EVERYTHING = SEED_SCRIPTS[0] + '''
special 300:MySpecial(1), -400:MyFunction(0, 2);
#wadauthor
script 9 (void) { CreateTranslation(1, 0:1 = 2:3, 4:5 = [1, 2, 3]:[4, 5, 6], 6:7 = %[0.1, 0.2, 0.3]:[1.0, 1.0, 1.0]);
    ACS_ExecuteWait(1, 0); StrCpy(a:names, "x"); MorphActor(0); int c = ++total; total++;
    ; c = 1, total = c ? 2 : 3; }
'''


def nodes(node):
    """Every node under (and including) ``node``."""
    yield node
    for name in getattr(type(node), "__slots__", ()):
        value = getattr(node, name, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.Node):
                yield from nodes(item)


def test_the_node_types_split_into_expressions_statements_top_level_and_parts():
    groups = [set(ast.EXPRESSIONS), set(ast.STATEMENTS), set(ast.TOP_LEVEL), PARTS]
    assert set().union(*groups) == NODE_TYPES
    assert sum(map(len, groups)) == len(NODE_TYPES)    # no type in two groups


def test_the_parser_builds_every_node_type(tmp_path):
    (tmp_path / "lib.acs").write_text('#library "lib"\nint x;\n')
    main = tmp_path / "main.acs"
    main.write_text(EVERYTHING + '#import "lib.acs"\n')
    program = parse(preprocess(Source(str(main), main.read_text())))
    built = {type(node) for item in [program] for node in nodes(item)}
    assert built == NODE_TYPES


def test_the_checker_and_the_generator_dispatch_every_node_type():
    inline = {ast.Number, ast.Binary}   # handled before the table is looked at
    for table_owner in (Checker, Generator):
        assert set(table_owner._STATEMENTS) == set(ast.STATEMENTS), table_owner
        assert set(table_owner._EXPRESSIONS) | inline == set(ast.EXPRESSIONS), table_owner
    assert set(Checker._TOP_LEVEL) == set(ast.TOP_LEVEL)
    generated = {ast.ScriptDef, ast.FunctionDef}   # the top-level items with code; the rest are tables
    source = inspect.getsource(Generator.program)
    assert all(f"ast.{cls.__name__}" in source for cls in generated)


def test_each_stage_is_a_function_of_the_previous_stages_output():
    tokens = preprocess(Source("seed.acs", SEED_SCRIPTS[0]))
    program = parse(tokens)
    findings = check(program)
    assert isinstance(findings, Findings)
    first = write_object(generate(program, findings))
    assert write_object(generate(program, findings)) == first          # generating changes nothing it reads
    assert write_object(generate(program, check(program))) == first    # nor does checking change the tree
    assert Parser.__doc__ and Checker.__doc__ and Generator.__doc__
