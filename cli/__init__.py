"""The `wadgym` command line: one entry point, one module per subcommand in this package.

Each subcommand module (wadgym.cli.build, .acs, .rollout, .train, .eval, .record, .worldmodel, .play, .runs, .export,
.doctor, .track) holds that command's argument wiring: `add_arguments(parser)` and `run(args) -> int`, which turns
the arguments into typed values (plain ones, or a dataclass such as wadgym.agents.TrainConfig: no argparse object goes
below this package) passed to the code in wadgym.acs, .wads, .envs and .agents, and their errors into
messages and exit statuses. Only the module of the command being run is imported, so `wadgym build` works
on an install without the training extras and `wadgym --help` stays fast. `python -m wadgym` and
`python -m wadgym.cli` run it too.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help). Order is the order `wadgym --help` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("wadgym.cli.build", "build a scenario's WAD (and a preview PNG) from its name or a Python file"),
    "acs": ("wadgym.cli.acs", "compile (`acs compile`) or disassemble (`acs dis`) ACS"),
    "rollout": ("wadgym.cli.rollout", "run episodes headless with a random or saved policy"),
    "train": ("wadgym.cli.train", "train PPO on a wadgym env"),
    "eval": ("wadgym.cli.eval", "evaluate a training run against a random policy"),
    "record": ("wadgym.cli.record", "record a policy's episodes as a Minari dataset"),
    "worldmodel": ("wadgym.cli.worldmodel", "record labelled play for world models as WebDataset shards"),
    "play": ("wadgym.cli.play", "play an env yourself in the game's window (and record it as a dataset)"),
    "runs": ("wadgym.cli.runs", "list training runs"),
    "export": ("wadgym.cli.export", "export a run's policy (ONNX)"),
    "doctor": ("wadgym.cli.doctor", "check the installation: versions, CUDA, a headless game"),
    "track-sync": ("wadgym.cli.track", "upload a run folder to MLflow (what is not there yet)"),
}

# Modules that only the training extras bring: a command needing one says how to install it.
TRAINING_EXTRAS = {"yaml", "torch", "stable_baselines3", "tensorboard", "tqdm", "rich", "matplotlib", "onnx",
                   "onnxruntime", "imageio", "imageio_ffmpeg", "moviepy"}

# Modules of the demos extra (wadgym record): Minari, and what its DataCollector and HDF5 storage import.
DEMOS_EXTRAS = {"minari", "jax", "h5py", "PIL"}

# Modules of the data extra (wadgym worldmodel, its loader and the format's own reader).
DATA_EXTRAS = {"webdataset"}


def missing_extra(command: str, error: ModuleNotFoundError) -> str | None:
    """How to install what `wadgym command` lacks, when `error` is a missing training extra."""
    missing = (error.name or "").split(".")[0]
    if missing == "ray":
        return (f"wadgym {command} with RLlib needs Ray RLlib, which is not installed: pip install 'wadgym[rllib]' "
                f"(it pins gymnasium; a venv of its own keeps others on the newest)")
    if missing == "mlflow":
        return (f"wadgym {command}: experiment tracking (--track, --tracking-uri, track-sync) needs MLflow, "
                f"which is not installed: pip install 'wadgym[track]'")
    if command == "worldmodel" and missing in (*DATA_EXTRAS, "PIL", "yaml", "tqdm"):
        return (f"wadgym {command}: world-model datasets need the data extra (no module {missing!r}): "
                "pip install 'wadgym[data]'")
    if missing in DEMOS_EXTRAS or (command == "record" and missing in ("yaml", "tqdm")):
        return (f"wadgym {command}: datasets need Minari (no module {missing!r}): pip install 'wadgym[demos]'")
    if missing in ("pettingzoo", "filelock"):
        return (f"wadgym {command}: multi-agent envs need PettingZoo (no module {missing!r}): "
                "pip install 'wadgym[multi]'")
    if missing not in TRAINING_EXTRAS:
        return None
    return (f"wadgym {command} needs the training extras, which are not installed (no module {missing!r}): "
            f"pip install 'wadgym[train]'")


def make_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `command`'s module is imported and given its arguments."""
    from wadgym import __version__

    parser = argparse.ArgumentParser(prog="wadgym", description="ViZDoom RL environments built from Python.")
    parser.add_argument("--version", action="version", version=f"wadgym {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        if name != command:
            sub.add_parser(name, help=help_text, description=help_text)
            continue
        module = importlib.import_module(COMMANDS[name][0])
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip(),
                           formatter_class=argparse.RawDescriptionHelpFormatter)  # docstrings hold usage blocks
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    try:
        parser = make_parser(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if getattr(args, "_run", None) is None:
            parser.print_help()
            return 2
        return int(args._run(args) or 0)
    except ModuleNotFoundError as error:
        message = missing_extra(command, error)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

