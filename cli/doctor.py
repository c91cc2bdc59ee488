"""Check the installation: package versions, CUDA, and that wadgym builds a map a headless game starts on.

    wadgym doctor

Exits 0 when the core (build, acs, rollout) works, 1 with a plain explanation of each problem
otherwise; missing training packages are reported, not counted as problems (plain `pip install wadgym`
is a valid install).
"""

from __future__ import annotations

import argparse

from wadgym.agents import doctor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-game", action="store_true", help="skip starting a game")


def run(args: argparse.Namespace) -> int:
    import platform

    from wadgym.agents.system import installed_versions

    versions = {"python": platform.python_version(), **installed_versions(doctor.REQUIRED + doctor.TRAINING)}
    print("versions:")
    for name, version in versions.items():
        print(f"  {name:<18} {version or ('not installed' if name in doctor.TRAINING else 'MISSING')}")
    problems = [f"{name} is not installed: pip install 'wadgym'" for name in doctor.REQUIRED if not versions.get(name)]
    print(f"cuda: {doctor.cuda_report()}")
    if not args.no_game and versions.get("vizdoom"):
        problems += doctor.check_game()
    if problems:
        print("\nproblems:")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    if all(versions.get(name) for name in doctor.TRAINING):
        print("\nall good")
    else:
        print("\nall good for maps, ACS and rollouts; training needs: pip install 'wadgym[train]'")
    return 0


