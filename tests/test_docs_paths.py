"""The docs name no absolute path of the machine that made them: their commands are written as a user types
them in a checkout (`python bench/learn.py ... --runs runs-long`, `wadgym eval runs/NAME`), so a reader can
run them.

What counts as such a path: a path from the file system's root (`/work/runs-long`, `/tmp/x/y`, `/root/.cache`,
`/home/me/wadgym`) or a `file://` URL, anywhere in README.md, docs/**/*.md or docs/**/*.json (for JSON: every
key and string, decoded). A path from the root counts where
it has two parts or more (`/a/b`) or is a folder where machines keep their own files (`/work`, `/tmp`,
`/root`, `/home`, ...).

What does not: URLs (`https://host/a/b`), relative paths (`runs/bench/NAME`, `../items.png`,
`wadgym/envs/runtime/netns.py`), user-relative ones (`~/.cache/wadgym`, `$HOME/x`), ratios and splits
(`steps/s`, `train/test`), closing HTML tags, Windows paths (the docs are made on Linux; the ACS page shows
where a Windows user puts wadgym-acc.exe), and the system's own locations, the same on every machine
that the prose names as such: /dev, /proc and /sys (`/dev/shm`, the engine's shared memory), /etc,
/usr/share and /usr/local/share (`/usr/local/share/acc/`, where acc looks for its headers)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# The start of a path from the root: not inside a word, a URL, a relative or user-relative path, or after a
# placeholder ($HOME/..., {root}/...).
FROM_ROOT = re.compile(r"(?<![\w.~/:\\}\])>$%*+-])(/[\w.+@-]+(?:/[\w.+@-]*)*)")
FILE_URL = re.compile(r"(file://\S+)")
URL = re.compile(r"[A-Za-z][\w+.-]*://\S+")
MACHINE_ROOTS = {"work", "workspace", "tmp", "root", "home", "Users", "mnt", "media", "opt", "srv", "var", "data",
                 "scratch", "private", "run", "builds", "content", "kaggle"}
SYSTEM = ("/dev/", "/proc/", "/sys/", "/etc/", "/usr/share/", "/usr/local/share/")


def machine_paths(text: str) -> list[str]:
    """The absolute paths of a machine in `text`, as the module's docstring says what counts."""
    found = []
    for match in FROM_ROOT.finditer(URL.sub(" ", text)):
        path = match.group(1)
        parts = [p for p in path.split("/") if p]
        if not parts or (path + "/").startswith(SYSTEM) or path in {s.rstrip("/") for s in SYSTEM}:
            continue
        if len(parts) >= 2 or parts[0] in MACHINE_ROOTS:
            found.append(path)
    found += [m.group(1) for m in FILE_URL.finditer(text)]
    return found


def strings(value) -> list[str]:
    """Every key and string of a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def findings(path: Path, text: str) -> list[str]:
    """"FILE:LINE: PATH" for each absolute path of a machine in a page or JSON file's text."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    lines = text.splitlines()
    if path.suffix == ".json":
        found = {p for s in strings(json.loads(text)) for p in machine_paths(s)}
        at = sorted((next((n for n, line in enumerate(lines, 1) if p in line), 0), p) for p in found)
        return [f"{where}:{n}: {p}" for n, p in at]
    return [f"{where}:{n}: {p}" for n, line in enumerate(lines, 1) for p in machine_paths(line)]


FILES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *sorted(DOCS.rglob("*.json"))]


def test_the_docs_name_no_absolute_path_of_a_machine():
    assert len(FILES) > 10 and DOCS / "benchmark.json" in FILES
    bad = [finding for path in FILES for finding in findings(path, path.read_text())]
    assert not bad, ("absolute paths of a machine in the docs (write commands as a user types them in a checkout: "
                     "run folders by name under --runs, see tests/test_docs_paths.py):\n" + "\n".join(bad))


# Lines as the docs had them before their commands were written as a user types them, and what they became.
OLD = [
    ("- `learn.py --env DoomItemsMaze-v1 --budget cpu-long --seeds 1 --runs /work/runs-long --docs "
     "/work/bench-docs-maze && wadgym train --resume /work/runs-long/DoomItemsMaze-v1_cpu-long_s0_20261203-054116 "
     "--no-progress`", ["/work/runs-long", "/work/bench-docs-maze",
                        "/work/runs-long/DoomItemsMaze-v1_cpu-long_s0_20261203-054116"]),
    ("- `wadgym train --env DoomHealth-v0 --timesteps 100000 --run-dir /tmp/hruns/t3 --no-progress`",
     ["/tmp/hruns/t3"]),
    ('      "run_dir": "/work/results/runs/DoomItems-v1_s0",', ["/work/results/runs/DoomItems-v1_s0"]),
    ("cached in /root/.cache/wadgym; runs in /srv/x; see file:///home/me/a.html",
     ["/root/.cache/wadgym", "/srv/x", "file:///home/me/a.html"]),
    ("--runs=/work", ["/work"]),
]
NEW = [
    "- `python bench/learn.py --env DoomItemsMaze-v1 --budget cpu-long --seeds 1 --runs runs-long && wadgym train "
    "--resume runs-long/DoomItemsMaze-v1_cpu-long_s0_20261203-054116 --no-progress`",
    "- `wadgym eval runs/bench/DoomItems-v1_cpu_s0_20261130-221132 --episodes 20`",
    '      "run_dir": "runs/DoomItems-v1_s0",',
    "[ViZDoom](https://github.com/Farama-Foundation/ViZDoom) and <http://localhost:5000/#/experiments/1>",
    "queues (/dev/shm) and the socket pairs; `/proc/self/ns/net`; `/sys/fs/cgroup`; `/etc/os-release`",
    "acc on Unix also searches `/usr/local/share/acc/` (after the current folder)",
    "How (`wadgym/envs/runtime/netns.py`, `../items.png`, ![x](docs/items.png), `./examples/a.py`)",
    "the cache: `~/.cache/wadgym` (WADGYM_CACHE_DIR), $HOME/.cache, ${XDG_CACHE_HOME}/wadgym, {root}/runs",
    "65 steps/s; train/test levels; 1/2 of items/episode; <td>a</td> <br/> and / or",
    'with backslashes doubled (`program = "C:\\\\Users\\\\me\\\\venv\\\\Scripts\\\\wadgym-acc.exe";`)',
]


@pytest.mark.parametrize("line, paths", OLD)
def test_the_check_finds_the_paths_of_a_machine(line, paths):
    assert machine_paths(line) == paths


@pytest.mark.parametrize("line", NEW)
def test_the_check_lets_commands_as_users_type_them_and_prose_be(line):
    assert machine_paths(line) == []


def test_a_finding_names_the_file_and_line(tmp_path):
    page = tmp_path / "page.md"
    text = "# A page\n\nTrain with `wadgym train --run-dir /tmp/runs/a`.\n"
    assert findings(page, text) == [f"{page}:3: /tmp/runs/a"]
    data = tmp_path / "rows.json"
    text = json.dumps({"runs": {"/work/runs/x": {"command": "wadgym eval /work/runs/x\n/tmp/y/z"}}}, indent=2)
    assert findings(data, text) == [f"{data}:3: /work/runs/x", f"{data}:4: /tmp/y/z"]
