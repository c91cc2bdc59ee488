"""What a run records: git commit (or why there is none), package versions, the device."""

from __future__ import annotations

import re
import subprocess

import pytest
import torch

from wadgym.agents.system import code_root, git_info, select_device, system_info


def test_git_info_of_a_folder_that_is_not_a_checkout(tmp_path):
    info = git_info(tmp_path)
    assert info["commit"] is None and info["dirty"] is None
    assert info["source"].startswith("not a git checkout")


def test_git_info_of_a_checkout_names_its_commit_and_dirtiness(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], check=True)
    clean = git_info(tmp_path.resolve())
    assert re.fullmatch(r"[0-9a-f]{40}", clean["commit"]) and clean["dirty"] is False
    (tmp_path / "a.py").write_text("x = 2\n")
    assert git_info(tmp_path.resolve())["dirty"] is True


def test_a_subfolder_of_another_repository_is_not_our_checkout(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    inner = tmp_path / "site-packages" / "wadgym"
    inner.mkdir(parents=True)
    assert git_info(inner.resolve())["commit"] is None


def test_versions_name_every_dependency():
    versions = system_info()  # SB3's get_system_info names, and ours
    assert all(versions[name] for name in ("Python", "wadgym", "vizdoom", "Gymnasium", "Stable-Baselines3", "PyTorch"))
    assert code_root().name  # the folder the wadgym package lives in


def test_device_selection_follows_what_torch_sees():
    assert select_device("cpu") == "cpu"
    if torch.cuda.is_available():
        assert select_device("auto") == "cuda" and select_device("cuda") == "cuda"
    else:
        assert select_device("auto") == "cpu"
        with pytest.raises(ValueError, match="sees no CUDA GPU"):
            select_device("cuda")
    with pytest.raises(ValueError, match="expected auto, cpu, cuda or cuda:N"):
        select_device("gpu")
