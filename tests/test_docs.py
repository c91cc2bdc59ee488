"""The documentation as a reader uses it: every ```python block of README.md and docs/ runs exactly as printed,
as a plain script in a fresh process (the real engine, in a folder of its own), and every registered id has
its environment page."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from wadgym.envs.registration import ENVS

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)  # pymdownx.snippets: the file's text, as the site shows it
TIMEOUT_S = 300


def python_blocks() -> list[tuple[str, str]]:
    """(where, code) for every ```python block, snippets expanded; where is "FILE:N", N counting from 1."""
    blocks = []
    for page in PAGES:
        for n, match in enumerate(BLOCK.finditer(page.read_text()), 1):
            code = SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(), match.group(1))
            blocks.append((f"{page.relative_to(ROOT)}:{n}", code))
    return blocks


BLOCKS = python_blocks()


def load_hook():
    spec = importlib.util.spec_from_file_location("envpages", ROOT / "docs" / "hooks" / "envpages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_and_the_site_have_examples():
    where = {w.split(":")[0] for w, _ in BLOCKS}
    assert "README.md" in where and len(where) >= 5, where


@pytest.mark.parametrize("where, code", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_example_runs_as_printed(where, code, tmp_path):
    """A fresh interpreter in an empty folder (examples/ linked in, as beside a checkout) runs the block; the
    session's WAD cache is shared through WADGYM_CACHE_DIR (tests/conftest.py)."""
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    script = tmp_path / "example.py"
    script.write_text(code)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=TIMEOUT_S)
    assert result.returncode == 0, f"{where} failed:\n{code}\n--- stderr:\n{result.stderr[-4000:]}"


def test_the_readme_links_to_files_that_exist():
    """The README's relative links and pictures (into docs/, read on GitHub or a checkout) name files that exist."""
    targets = re.findall(r"\]\(([^)#\s]+)", (ROOT / "README.md").read_text())
    local = [t for t in targets if "://" not in t]
    assert local and not [t for t in local if not (ROOT / t).is_file()]


def test_every_registered_id_has_its_family_page():
    hook = load_hook()
    pages = hook.family_pages()
    overview = hook.overview_table()
    for env_id, (entry_point, _, _) in ENVS.items():
        page = f"environments/{entry_point.split(':')[0].rsplit('.', 1)[-1]}.md"
        assert f"| `{env_id}` |" in pages[page], f"{env_id} is missing from {page}"
        assert f"| [{env_id}](" in overview, f"{env_id} is missing from the overview"


def test_every_family_page_is_in_the_navigation():
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]

    def paths(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from paths(value) if isinstance(value, list) else [value]

    listed = set(paths(nav))
    assert set(load_hook().family_pages()) <= listed
    assert all((ROOT / "docs" / path).is_file() for path in listed if not path.startswith("environments/")
               or path == "environments/index.md")


def test_family_page_shows_its_pictures_and_benchmark_rows():
    """The items page: its picture, its strip of frames, its presets and its rows of docs/benchmark.md."""
    page = load_hook().family_pages()["environments/items.md"]
    assert "](../items.png)" in page and "](../frames/DoomItems-v1.png)" in page
    assert "| `maze_large` |" in page and "## Action Space" in page
    benchmark = [line for line in (ROOT / "docs" / "benchmark.md").read_text().splitlines()
                 if line.startswith("| DoomItems-v1 |")]
    assert benchmark and benchmark[0] in page
