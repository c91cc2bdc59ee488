"""WAD cache: a scenario's WAD is built once per (scenario, parameters, seed, wadgym code) and kept under its hash.

The folder is, first found: the `cache_dir` argument, $WADGYM_CACHE_DIR, $XDG_CACHE_HOME/wadgym,
~/.cache/wadgym. Files are written under a temporary name and renamed, so parallel workers building
the same WAD never read a half-written file (the last rename wins; both wrote the same bytes).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Callable

ENV_VAR = "WADGYM_CACHE_DIR"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
# The code a built WAD depends on: a change to any of it gives new cache keys.
CODE_GLOBS = ("acs/*.py", "acs/*.acs", "wads/*.py", "envs/scenarios/*.py", "envs/scenarios/*.acs")


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    if override is not None:
        return Path(override).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "wadgym"


@functools.cache
def code_fingerprint() -> str:
    """Hash of the sources that turn parameters into WAD bytes (computed once per process)."""
    digest = hashlib.sha256()
    for pattern in CODE_GLOBS:
        for path in sorted(PACKAGE_ROOT.glob(pattern)):
            if path.is_file():
                digest.update(str(path.relative_to(PACKAGE_ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def wad_key(description: dict) -> str:
    """Hash of what a WAD is built from (a JSON-able description) and of the code that builds it."""
    text = json.dumps({**description, "code": code_fingerprint()}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_wad(stem: str, description: dict, build: Callable[[], bytes],
               directory: str | os.PathLike | None = None) -> Path:
    """Path of `<cache>/<stem>-<key>.wad` for `description` (see wad_key), calling `build()` for its
    bytes and storing them on first use."""
    folder = cache_dir(directory)
    path = folder / f"{stem}-{wad_key(description)}.wad"
    if path.is_file():
        return path
    from wadgym.wads import write_wad

    data = build()
    folder.mkdir(parents=True, exist_ok=True)
    write_wad(path, data)  # atomic: a temporary file in `folder`, then a rename
    return path


def scenario_description(scenario: str, params, seed: int) -> dict:
    return {"scenario": scenario, "params": dataclasses.asdict(params), "seed": int(seed)}


def scenario_wad(scenario: str, params, seed: int = 0, directory: str | os.PathLike | None = None) -> Path:
    """The cached WAD of a registered scenario built with (params, seed)."""
    from wadgym.envs.scenarios import build_scenario_wad

    return cached_wad(scenario, scenario_description(scenario, params, seed),
                      lambda: build_scenario_wad(scenario, params, seed), directory)
