"""The installation checks `wadgym doctor` runs (wired in wadgym.cli.doctor): CUDA, and whether wadgym
builds a map that a headless game starts on. Missing training packages are reported, not counted as
problems (plain `pip install wadgym` is a valid install)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

# Needed for the envs (core; a missing one is a problem) and for training (the `train` extra).
REQUIRED = ("wadgym", "vizdoom", "gymnasium", "numpy", "omgifol")
TRAINING = ("stable-baselines3", "torch")


def cuda_report() -> str:
    try:
        import torch
    except ImportError:
        return "unknown (torch is not installed)"
    if not torch.cuda.is_available():
        return (f"not available (torch {torch.__version__}, built for CUDA {torch.version.cuda or 'none'}); "
                "training runs on the CPU")
    names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
    return f"available: {names} (CUDA {torch.version.cuda}); `wadgym train` uses it by default"


def check_game() -> list[str]:
    """Build a level of the default env's family with wadgym and run a hidden game on it for a few tics.
    If wadgym cannot build it, freedoom2's MAP01 tells whether the engine itself works."""
    problems = []
    scenario = check_scenario()
    with tempfile.TemporaryDirectory(prefix="wadgym-doctor-") as tmp:
        try:
            wad, what = _build_wad(Path(tmp), scenario), f"wadgym-built '{scenario}' map"
        except Exception as exc:  # any failure of the builder is what doctor exists to report
            problems.append(f"wadgym could not build the '{scenario}' map: {type(exc).__name__}: {exc}")
            wad, what = None, "freedoom2.wad MAP01 (the engine alone)"
        try:
            seconds, shape = start_game(wad)
            print(f"game: a headless ViZDoom game started on the {what} in {seconds:.2f} s; screen {shape}")
        except Exception as exc:
            problems.append(f"a headless ViZDoom game did not start on the {what}: {type(exc).__name__}: {exc}")
            print(f"game: FAILED on the {what}")
    return problems


def check_scenario() -> str:
    """The module of the default env's family: the map doctor builds."""
    from wadgym.envs.registration import DEFAULT_ENV, ENVS

    return ENVS[DEFAULT_ENV][0].split(":")[0]


def _build_wad(folder: Path, scenario: str) -> Path:
    from wadgym.envs.scenarios import build_scenario_wad
    from wadgym.files import write_atomic

    path = folder / "check.wad"
    write_atomic(path, build_scenario_wad(scenario, None, 0))
    return path


def start_game(wad: Path | None, tics: int = 35) -> tuple[float, tuple[int, ...]]:
    """Start a hidden 160x120 game (on `wad`'s MAP01, or freedoom2's), advance `tics`, close it."""
    import vizdoom as vzd

    from wadgym.envs.runtime import engine

    start = time.perf_counter()
    game = engine.make_game(wad, buttons=[vzd.Button.MOVE_FORWARD])
    try:
        game.init()
        game.make_action([1], tics)
        state = game.get_state()
        if state is None or state.screen_buffer is None:
            raise RuntimeError("the game ran but gave no screen")
        return time.perf_counter() - start, tuple(state.screen_buffer.shape)
    finally:
        game.close()
