"""The `wadgym` command line: one entry point, one module per subcommand.

Each subcommand module defines `add_arguments(parser)` and `run(args) -> int`, and keeps heavy
imports (vizdoom, torch, stable-baselines3) inside `run`, so `wadgym --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

# name -> (module, one-line help). Order is the order `wadgym --help` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("wadgym.envs.build", "build a scenario's WAD (and a preview PNG) from its name or a Python file"),
    "acs": ("wadgym.acs.cli", "compile (`acs compile`) or disassemble (`acs dis`) ACS"),
    "rollout": ("wadgym.agents.rollout", "run episodes headless with a random or saved policy"),
    "train": ("wadgym.agents.train", "train PPO on a wadgym env"),
    "eval": ("wadgym.agents.evaluate", "evaluate a training run against a random policy"),
    "runs": ("wadgym.agents.runs", "list training runs"),
    "export": ("wadgym.agents.export", "export a run's policy (ONNX)"),
    "doctor": ("wadgym.agents.doctor", "check the installation: versions, CUDA, a headless game"),
}


def _available() -> dict[str, tuple[str, str]]:
    """The commands whose module is installed (lets the CLI grow one module at a time)."""
    return {n: c for n, c in COMMANDS.items() if importlib.util.find_spec(c[0]) is not None}


def make_parser() -> argparse.ArgumentParser:
    from wadgym import __version__

    parser = argparse.ArgumentParser(prog="wadgym", description="ViZDoom RL environments built from Python.")
    parser.add_argument("--version", action="version", version=f"wadgym {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in _available().items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip())
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
