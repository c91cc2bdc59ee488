"""What a run records about the machine and the code: software versions, git commit, device."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path


def system_info() -> dict[str, str | None]:
    """What a run records about its software: SB3's get_system_info (OS, Python, Stable-Baselines3, PyTorch,
    GPU Enabled, Numpy, Cloudpickle, Gymnasium) and the versions it does not list (vizdoom, omgifol, wadgym)."""
    from stable_baselines3.common.utils import get_system_info

    return {**get_system_info(print_info=False)[0], **installed_versions(("vizdoom", "omgifol", "wadgym"))}


def installed_versions(distributions: tuple[str, ...]) -> dict[str, str | None]:
    """The installed version of each distribution (None when missing), without importing it: what
    `wadgym doctor` checks on an installation that may lack the training packages."""
    versions: dict[str, str | None] = {}
    for dist in distributions:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return versions


def code_root() -> Path:
    import wadgym

    return Path(wadgym.__file__).resolve().parent


def git_info(root: Path | None = None) -> dict[str, object]:
    """{"commit", "dirty", "source"} of the wadgym code; commit None when it is not a git checkout
    (e.g. installed from a wheel) or git is missing."""
    root = root or code_root()
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
        if Path(top).resolve() != root:  # site-packages inside some other repository is not our checkout
            raise RuntimeError("not the wadgym checkout")
        commit = _git(root, "rev-parse", "HEAD")
        changed = _git(root, "status", "--porcelain")  # untracked source counts: it is code the run used
    except (OSError, RuntimeError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "source": f"not a git checkout ({root})"}
    return {"commit": commit, "dirty": bool(changed), "source": str(root)}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip())
    return done.stdout.strip()


def select_device(requested: str = "auto") -> str:
    """SB3's get_device ('auto' -> 'cuda' when torch sees a GPU, else 'cpu'), except that asking for
    'cuda' without a GPU is an error rather than a quiet fall back to the CPU."""
    import torch
    from stable_baselines3.common.utils import get_device

    if requested not in ("auto", "cpu", "cuda") and not requested.startswith("cuda:"):
        raise ValueError(f"device {requested!r}: expected auto, cpu, cuda or cuda:N")
    try:
        device = get_device(requested)
    except RuntimeError as exc:  # torch.device("cuda:x")
        raise ValueError(f"device {requested!r}: expected auto, cpu, cuda or cuda:N ({exc})") from None
    if requested != "auto" and device.type != torch.device(requested).type:
        raise ValueError(f"device {requested!r} requested but torch {torch.__version__} sees no CUDA GPU")
    return str(device)


def device_description(device: str) -> str:
    import torch

    if device.startswith("cuda"):
        return f"{device} ({torch.cuda.get_device_name(torch.device(device))})"
    return f"cpu ({platform.processor() or platform.machine()}, {torch.get_num_threads()} torch threads)"


def command_line() -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in [Path(sys.argv[0]).name, *sys.argv[1:]])
