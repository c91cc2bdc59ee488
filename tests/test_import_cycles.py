"""The package's imports flow one way: no import cycle, `cli -> agents -> envs -> {wads, acs}`, and no
argparse below cli/.

Read from the source (ast), never by importing it: every `import` and `from ... import` in a module
counts, at module level or inside a function (this codebase imports lazily a lot, and a lazy import
is still a dependency). An edge goes to the module imported, not to the packages above it that Python
runs first: `from wadgym.agents import runfolder` depends on wadgym.agents.runfolder, and on
wadgym.agents (its __init__) only for a name that is not a submodule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent  # the repository root is the `wadgym` package
PACKAGE = "wadgym"

# The layers, top to bottom: a module may import its own layer and the layers below it. wads and acs
# stand side by side (neither imports the other: build_wad takes the compiler as an argument);
# files.py serves every layer. The package's own __init__ and __main__ stand above them all.
LAYERS = {"cli": 3, "agents": 2, "envs": 1, "wads": 0, "acs": 0, "files": -1}
# Third-party modules a layer must never import: the map and compiler layers know no engine, no
# Gymnasium, no torch.
FORBIDDEN = {"wads": {"vizdoom", "gymnasium", "torch"}, "acs": {"vizdoom", "gymnasium", "torch"}}


def module_files() -> dict[str, Path]:
    """Dotted name -> source file of every module of the package: the .py files of the root and of the
    folders below it that are packages (an __init__.py all the way down: not tests/, bench/, examples/)."""
    modules = {}
    folders = [ROOT]
    while folders:
        folder = folders.pop()
        for path in sorted(folder.iterdir()):
            if path.is_dir() and (path / "__init__.py").is_file() and not path.name.startswith("."):
                folders.append(path)
            elif path.suffix == ".py":
                parts = path.relative_to(ROOT).with_suffix("").parts
                modules[".".join((PACKAGE, *(parts[:-1] if parts[-1] == "__init__" else parts)))] = path
    return modules


MODULES = module_files()


def is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The import nodes under `if TYPE_CHECKING:` (never run, so no dependency)."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(ast.walk(child))
    return skipped


def imports_of(module: str) -> list[tuple[str, int]]:
    """(imported name, line) for every import in `module`, relative ones made absolute; a `from X import
    name` gives X.name where that is a module of the package, else X."""
    tree = ast.parse(MODULES[module].read_text(), filename=str(MODULES[module]))
    skipped = type_checking_only(tree)
    found = []
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package(module) else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                found.append((f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source,
                              node.lineno))
    return found


def graph() -> dict[str, dict[str, int]]:
    """module -> {module of the package it imports: the line of its first import}."""
    edges: dict[str, dict[str, int]] = {}
    for module in MODULES:
        edges[module] = {}
        for name, line in imports_of(module):
            while name and name not in MODULES:  # `import wadgym.envs.families.items as x` names a module
                name = name.rpartition(".")[0]
            if name and name != module and name.startswith(PACKAGE):
                edges[module].setdefault(name, line)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in edges:
        if node not in index:
            visit(node)
    return found


def layer(module: str) -> str | None:
    """The layer a module belongs to (its first folder under the package), None for the package's
    own __init__ and __main__, which stand above every layer."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def describe(component: list[str], edges: dict[str, dict[str, int]]) -> str:
    inside = set(component)
    lines = [f"  {a} -> {b} ({MODULES[a].relative_to(ROOT)}:{line})"
             for a in component for b, line in edges[a].items() if b in inside]
    return "import cycle among " + ", ".join(component) + ":\n" + "\n".join(lines)


def test_the_walk_sees_every_kind_of_import():
    """The walk finds module-level, function-level and relative imports (else the checks below prove nothing)."""
    edges = graph()
    assert len(MODULES) > 50
    assert "wadgym.envs.registration" in edges["wadgym"]  # module level, in the package's __init__
    assert "wadgym.agents.vec" in edges["wadgym.cli.train"]  # inside add_arguments()
    assert "wadgym.agents.runfolder" in edges["wadgym.agents.backends.sb3"]  # `from wadgym.agents import runfolder`
    assert "wadgym.envs.runtime.engine" in edges["wadgym.envs.doom_env"]  # `from .engine import ...`


def test_cycles_are_found():
    """The cycle finder on a graph with a known cycle, and on one without."""
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1, "d": 1}, "d": {}}
    assert cycles(edges) == [["a", "b", "c"]]
    edges["c"].pop("a")
    assert cycles(edges) == []


def test_no_import_cycles():
    edges = graph()
    found = cycles(edges)
    assert not found, "\n".join(describe(component, edges) for component in found)


def test_imports_flow_down_the_layers():
    """cli -> agents -> envs -> {wads, acs}; files.py below them all."""
    wrong = []
    for module, targets in graph().items():
        here = layer(module)
        for target, line in targets.items():
            there = layer(target)
            if here is None or there is None or here == there:
                continue
            if LAYERS[there] >= LAYERS[here]:
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line}: {here}/ imports {target} ({there}/)")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


# Inside envs/, its rooms in one direction: the registration table on top, the task families below it, then
# the env base, then the vector envs and the shared scenario pieces, the engine runtime at the bottom (it knows
# no family, no env and no scenario). The small shared modules (checks, params, kwargs, build, and the base's
# action sets, frames and aiming helpers) are unranked.
ENVS_ORDER = {"registration": 4, "families": 3, "doom_env": 2, "vector": 1, "scenarios": 1, "runtime": 0}
# The tables' readers beside it: the PettingZoo maker (multi.make looks ids up in MULTI_ENVS, as gym.make
# looks them up in Gymnasium's registry); registration never imports it.
REGISTRY_READERS = {"registration", "multi"}
# Families never import one another (what two share lives in scenarios/), with one exception: the item
# race is the items task for several players, its Params and env subclass items' (a family built on another).
FAMILY_BASES = {("race", "items")}


def envs_room(module: str) -> tuple[str | None, str | None]:
    """(room, module in it) of a module of envs/: ("families", "items") for wadgym.envs.families.items,
    ("doom_env", None) for a top-level module, (None, None) outside envs/ and for envs/__init__."""
    parts = module.split(".")
    if parts[1:2] != ["envs"] or len(parts) < 3:
        return None, None
    return parts[2], (parts[3] if len(parts) > 3 else None)


def test_envs_rooms_flow_one_way():
    wrong = []
    for module, targets in graph().items():
        here, here_module = envs_room(module)
        if here is None:
            continue
        for target, line in targets.items():
            there, there_module = envs_room(target)
            where = f"{MODULES[module].relative_to(ROOT)}:{line}"
            if there == "registration" and here not in REGISTRY_READERS:  # data for the layers above, not below
                wrong.append(f"{where}: imports the registration table")
            elif here in ENVS_ORDER and there in ENVS_ORDER and here != there and ENVS_ORDER[there] >= ENVS_ORDER[here]:
                wrong.append(f"{where}: envs.{here} imports {target}")
            elif here == there == "families" and here_module and there_module and here_module != there_module \
                    and (here_module, there_module) not in FAMILY_BASES:
                wrong.append(f"{where}: the family {here_module} imports the family {there_module}")
    assert not wrong, "envs/ imports against its order:\n" + "\n".join(wrong)


def test_the_rooms_rule_finds_a_wrong_import():
    """The rule above flags the imports it is meant to: a family importing another, the runtime a family."""
    edges = {"wadgym.envs.families.exit": {"wadgym.envs.families.health": 1},
             "wadgym.envs.runtime.engine": {"wadgym.envs.families.items": 1}}
    rooms = [(envs_room(a), envs_room(b)) for a, targets in edges.items() for b in targets]
    assert rooms == [(("families", "exit"), ("families", "health")), (("runtime", "engine"), ("families", "items"))]
    assert ("exit", "health") not in FAMILY_BASES
    assert ENVS_ORDER["families"] >= ENVS_ORDER["runtime"]


def test_envs_has_its_rooms():
    """Every module of envs/ is in a room or one of the known top-level modules: a new file says where it goes."""
    top_level = {"doom_env", "multi", "registration", "checks", "params", "kwargs", "build", "actions", "frames",
                 "aiming", "match_figures"}
    stray = [m for m in MODULES if envs_room(m)[0] is not None and envs_room(m)[1] is None
             and envs_room(m)[0] not in top_level | set(ENVS_ORDER)]
    assert not stray, f"modules of envs/ in no room: {stray}"


# Inside agents/, its rooms in one direction: the backends on top (a backend hands its Trainer to the session
# skeleton of runs/, clones with datasets/, adds the exploration bonuses), then the life of a run folder (runs/)
# and the demonstrations (datasets/) side by side, both playing the saved policies of policies/ below them. So
# runs/, datasets/ and policies/ know no backend, and policies/ no run's life. The exploration bonuses are read
# by the backends alone (and their setting by config).
AGENTS_ORDER = {"backends": 3, "runs": 2, "datasets": 2, "policies": 1}
EXPLORATION_READERS = {"backends", "config"}
# What every room shares stays flat and imports no room, but for config, which reads the backends table (the
# backends package's __init__, which imports none of its backends) and the exploration setting.
AGENTS_SHARED = {"config", "runfolder", "restart", "vec", "evaluate", "episodes", "system", "doctor", "algos",
                 "features"}
SHARED_READS = {("config", "backends", None), ("config", "exploration", "explore")}


def agents_room(module: str) -> tuple[str | None, str | None]:
    """(room, module in it) of a module of agents/: ("backends", "sb3") for wadgym.agents.backends.sb3,
    ("backends", "rllib") for wadgym.agents.backends.rllib.train, ("config", None) for a shared module, (None,
    None) outside agents/ and for agents/__init__ (the public face, above every room)."""
    parts = module.split(".")
    if parts[1:2] != ["agents"] or len(parts) < 3:
        return None, None
    return parts[2], (parts[3] if len(parts) > 3 else None)


def agents_wrong_imports(edges: dict[str, dict[str, int]]) -> list[str]:
    wrong = []
    for module, targets in edges.items():
        here, _ = agents_room(module)
        if here is None:
            continue
        for target, line in targets.items():
            there, there_module = agents_room(target)
            where = f"{MODULES[module].relative_to(ROOT) if module in MODULES else module}:{line}"
            if there is None or there == here:
                continue
            if here in AGENTS_SHARED and there not in AGENTS_SHARED and (here, there, there_module) not in SHARED_READS:
                wrong.append(f"{where}: the shared agents.{here} imports {target}")
            elif there == "exploration" and here not in EXPLORATION_READERS:
                wrong.append(f"{where}: agents.{here} imports the exploration bonuses")
            elif here in AGENTS_ORDER and there in AGENTS_ORDER and AGENTS_ORDER[there] >= AGENTS_ORDER[here]:
                wrong.append(f"{where}: agents.{here} imports {target}")
    return wrong


def test_agents_rooms_flow_one_way():
    wrong = agents_wrong_imports(graph())
    assert not wrong, "agents/ imports against its order:\n" + "\n".join(wrong)


def test_the_agents_rule_finds_a_wrong_import():
    """The rule above flags the imports it is meant to: a run's life or a policy importing a backend, a policy
    the session skeleton, the shared vec a room, datasets/ the bonuses; and lets config read the table."""
    edges = {"wadgym.agents.runs.lifecycle": {"wadgym.agents.backends.sb3": 1},
             "wadgym.agents.policies.policy": {"wadgym.agents.backends.rllib.module": 2, "wadgym.agents.runs.plots": 3},
             "wadgym.agents.vec": {"wadgym.agents.policies.policy": 4},
             "wadgym.agents.datasets.pretrain": {"wadgym.agents.exploration.bonuses": 5},
             "wadgym.agents.config": {"wadgym.agents.backends": 6, "wadgym.agents.exploration.explore": 7}}
    wrong = agents_wrong_imports(edges)
    assert [w.split(":")[1] for w in wrong] == ["1", "2", "3", "4", "5"], wrong


def test_agents_has_its_rooms():
    """Every module of agents/ is in a room or one of the shared modules: a new file says where it goes."""
    rooms = set(AGENTS_ORDER) | {"exploration", "hyperparams"}
    stray = [m for m in MODULES if agents_room(m)[0] is not None and agents_room(m)[0] not in rooms | AGENTS_SHARED]
    assert not stray, f"modules of agents/ in no room: {stray}"
    assert all(m in MODULES for m in (f"wadgym.agents.{name}" for name in AGENTS_SHARED)), "a shared module is gone"


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_maps_and_compiler_import_no_engine(folder):
    wrong = [f"{MODULES[m].relative_to(ROOT)}:{line}: {name}" for m in MODULES if layer(m) == folder
             for name, line in imports_of(m) if name.split(".")[0] in FORBIDDEN[folder]]
    assert not wrong, f"{folder}/ imports what it must not:\n" + "\n".join(wrong)


def test_no_argparse_below_cli():
    """The command line is parsed in cli/ and turned into typed values there; nothing below sees argparse."""
    wrong = [f"{MODULES[m].relative_to(ROOT)}:{line}" for m in MODULES if layer(m) not in ("cli", None)
             for name, line in imports_of(m) if name.split(".")[0] == "argparse"]
    assert not wrong, "argparse imported below cli/:\n" + "\n".join(wrong)


def test_no_namespace_read_below_cli():
    """Nor is a Namespace handed down without the import: no `args.<option>` read below cli/ (the way
    this codebase named the parsed arguments)."""
    wrong = []
    for module in MODULES:
        if layer(module) in ("cli", None):
            continue
        tree = ast.parse(MODULES[module].read_text())
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}  # args.append(...): a list
        wrong += [f"{MODULES[module].relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "args"
                  and id(node) not in called]
    assert not wrong, "command-line arguments read below cli/:\n" + "\n".join(wrong)


def test_no_module_imports_private_names_of_another():
    """`from wadgym.x import _name` reaches into another module's insides: what modules share is public."""
    wrong = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(PACKAGE)):
                private = [alias.name for alias in node.names  # dunders (__version__) are public
                           if alias.name.startswith("_") and not alias.name.endswith("__")]
                if private:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: {', '.join(private)}")
    assert not wrong, "private names imported from another module:\n" + "\n".join(wrong)
