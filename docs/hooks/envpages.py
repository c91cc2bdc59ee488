"""MkDocs hook: the Environments pages, written at build time from the registration table and each family's
env class (its docstring, Params and PRESETS), with its pictures, its notes (docs/environments/notes/<family>.md,
hand-written) and its rows of docs/benchmark.md.

mkdocs.yml names this file under `hooks:`. `family_pages()` and `overview_table()` are plain functions of the
installed wadgym and the files in docs/, so tests/test_docs.py checks their output without building the site.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent
OVERVIEW_MARK = "<!-- envs:overview -->"
# What docs/<family>.png shows (the pictures were made for the README, each of one id and level).
PICTURES = {
    "items": "DoomItems-v0 from above (the items of seed 0) and what the player sees there",
    "health": "A level of DoomHealth-v0 from above (the medikits appear in play)",
    "exit": "A DoomExitHard-v0 building of 4 x 5 rooms from above, push doors in orange",
    "defend": "A DoomDefend-v0 level from above (seed 3); ACS spawns the monsters while the episode runs",
}


def families() -> dict[str, tuple[type, list[str]]]:
    """Short family name ("items") -> (env class, its registered ids in table order)."""
    from wadgym.envs.registration import ENVS

    found: dict[str, tuple[type, list[str]]] = {}
    for env_id, (entry_point, _, _) in ENVS.items():
        module, name = entry_point.split(":")
        family = module.rsplit(".", 1)[-1]
        if family not in found:
            found[family] = (getattr(importlib.import_module(module), name), [])
        found[family][1].append(env_id)
    return found


def benchmark_rows() -> tuple[list[str], dict[str, list[str]]]:
    """The header cells of docs/benchmark.md's table, and each env id's cells (one row per id and budget)."""
    header: list[str] = []
    rows: dict[str, list[str]] = {}
    path = DOCS / "benchmark.md"
    for line in path.read_text().splitlines() if path.is_file() else []:
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not header:
            header = cells
        else:
            rows.setdefault(cells[0], []).append(line)
    return header, rows


def title(env_class: type) -> str:
    """"Items: collect every item ..." from the class name and the docstring's first line."""
    summary = inspect.getdoc(env_class).splitlines()[0].rstrip(".")
    return f"{env_class.__name__.removesuffix('Env')}: {summary[0].lower()}{summary[1:]}"


def preset_table(env_class: type) -> list[str]:
    """Each preset's parameters that differ from the family's Params() defaults."""
    defaults = env_class.Params()
    lines = ["| preset | parameters that differ from the defaults |", "|---|---|"]
    for name, params in env_class.PRESETS.items():
        changed = [f"`{f.name}={getattr(params, f.name)!r}`" for f in dataclasses.fields(params)
                   if getattr(params, f.name) != getattr(defaults, f.name)]
        lines.append(f"| `{name}` | {', '.join(changed) or '(the defaults)'} |")
    return lines


def family_page(family: str, env_class: type, ids: list[str]) -> str:
    """The Markdown of one family's page (its path: environments/<family>.md)."""
    from wadgym.envs.registration import ENVS

    doc = inspect.getdoc(env_class).split("\n", 1)[1].strip()
    lines = [f"# {title(env_class)}", ""]
    picture = DOCS / f"{family}.png"
    if picture.is_file():
        caption = PICTURES.get(family, f"A level of the {family} family")
        lines += [f"![{caption}](../{picture.name}){{ width=\"480\" }}", "", f"*{caption}.*", ""]
    strip = DOCS / "frames" / f"{ids[0]}.png"
    if strip.is_file():
        lines += [f"![{ids[0]}: frames of one episode](../frames/{strip.name})", "",
                  f"*What the player sees: the scripted reference policy on a held-out level of {ids[0]}, every "
                  f"12 steps (`python docs/make_frames.py --env {ids[0]}`).*", ""]
    clip = DOCS / f"{family}.mp4"
    if clip.is_file():
        lines += [f"[A clip of a trained policy playing it]({'../' + clip.name}) (MP4, made with "
                  "`wadgym rollout ID --policy RUN --video FILE`).", ""]
    lines += ["## Registration", "", "| id | arguments | max_episode_steps |", "|---|---|---|"]
    for env_id in ids:
        _, kwargs, steps = ENVS[env_id]
        args = ", ".join(f"`{k}={v!r}`" for k, v in kwargs.items()) or "(the defaults)"
        lines.append(f"| `{env_id}` | {args} | {steps} |")
    lines += ["", "```python", "import gymnasium as gym", "import wadgym", "",
              f'env = gym.make("{ids[0]}", num_levels=200)',
              "obs, info = env.reset(seed=0)",
              "obs, reward, terminated, truncated, info = env.step(env.action_space.sample())",
              "env.close()", "```", ""]
    lines += [doc, ""]
    notes = DOCS / "environments" / "notes" / f"{family}.md"   # hand-written: what a docstring does not hold
    if notes.is_file():
        lines += [notes.read_text(), ""]
    lines += ["## Presets", "", f"`gym.make(ID, preset=NAME)`; any parameter given beside it overrides the "
              f"preset's (`help(wadgym.envs.families.{family}.Params)` lists them all).", ""]
    lines += preset_table(env_class) + [""]
    header, rows = benchmark_rows()
    mine = [row for env_id in ids for row in rows.get(env_id, [])]
    lines += ["## Learning benchmark", ""]
    if mine:
        lines += ["PPO with each id's `agents/hyperparams/ppo.yml` entry, evaluated on 50 seeded episodes of held-out "
                  "test levels beside a random and a scripted policy ([the whole benchmark](../benchmark.md)).", "",
                  "| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + mine
    else:
        lines.append("Not in the benchmark yet ([the benchmark](../benchmark.md)).")
    return "\n".join(lines) + "\n"


def family_pages() -> dict[str, str]:
    """environments/<family>.md -> its Markdown, for every registered family."""
    return {f"environments/{family}.md": family_page(family, env_class, ids)
            for family, (env_class, ids) in families().items()}


def overview_table() -> str:
    """One row per registered id: its family page, max_episode_steps and benchmark result on test levels."""
    from wadgym.envs.registration import ENVS

    header, rows = benchmark_rows()
    col = {name: i for i, name in enumerate(header)}
    lines = ["| id | max steps | trained vs random (test levels) | meets the bar |", "|---|---|---|---|"]
    for family, (_, ids) in families().items():
        for env_id in ids:
            result, verdict = "-", "not run yet"
            if env_id in rows:
                cells = [c.strip() for c in rows[env_id][0].strip().strip("|").split("|")]
                result = f"{cells[col['trained (test)']]} vs {cells[col['random (test)']]} {cells[col['score']]}"
                verdict = cells[col["meets the bar"]]
            lines.append(f"| [{env_id}]({family}.md) | {ENVS[env_id][2]} | {result} | {verdict} |")
    return "\n".join(lines)


# MkDocs hook events (mkdocs is imported only here: the functions above need only wadgym)

try:
    from mkdocs.plugins import event_priority
except ImportError:  # a test imports this module without the docs extra
    def event_priority(priority):
        return lambda f: f

_LINK_DIRS: list[str] = []


@event_priority(100)  # before mkdocstrings' on_config, which makes its handler from a copy of sys.path
def on_config(config):
    """The repository root is the `wadgym` package under whatever name it was checked out as: a temporary
    folder holding a link named wadgym goes first on sys.path, where this hook and mkdocstrings (griffe) find
    the package; an editable install's import hook is not something griffe reads. Once per process (`mkdocs
    serve` rebuilds), and not where sys.path already has such a link."""
    for entry in sys.path:
        link = Path(entry or ".") / "wadgym"
        if link.is_symlink() and link.resolve() == DOCS.parent:
            return config
    folder = tempfile.mkdtemp(prefix="wadgym-docs-")
    (Path(folder) / "wadgym").symlink_to(DOCS.parent, target_is_directory=True)
    sys.path.insert(0, folder)
    _LINK_DIRS.append(folder)
    return config


def on_shutdown():
    for folder in _LINK_DIRS:
        shutil.rmtree(folder, ignore_errors=True)
        if folder in sys.path:
            sys.path.remove(folder)
    _LINK_DIRS.clear()


def on_files(files, config):
    from mkdocs.structure.files import File

    for path, text in family_pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown, page, config, files):
    if OVERVIEW_MARK in markdown:
        return markdown.replace(OVERVIEW_MARK, overview_table())
    return markdown
