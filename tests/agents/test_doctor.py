"""`wadgym doctor` on the real installation, and what it says when something is off."""

from __future__ import annotations

from wadgym.agents import doctor
from wadgym.cli import main


def test_doctor_passes_on_this_installation(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for name in ("wadgym", "vizdoom", "gymnasium", "stable-baselines3", "torch", "numpy", "omgifol"):
        assert f"  {name} " in out
    assert "cuda: " in out
    assert "headless ViZDoom game started on the wadgym-built 'wadgym.envs.families.items' map" in out
    assert out.rstrip().endswith("all good")


def test_doctor_fails_with_an_explanation_when_the_map_cannot_be_built(capsys, monkeypatch):
    monkeypatch.setattr(doctor, "check_scenario", lambda: "no_such_scenario")
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "wadgym could not build the 'no_such_scenario' map" in out and "valid scenarios" in out
    # the engine alone still starts, so the explanation points at the builder, not at vizdoom
    assert "started on the freedoom2.wad MAP01" in out


def uninstall(monkeypatch, *names: str) -> None:
    """Package metadata as on an installation without `names`."""
    from importlib import metadata

    real_version = metadata.version

    def version(name):
        if name in names:
            raise metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(metadata, "version", version)


def test_doctor_reports_a_missing_package(capsys, monkeypatch):
    uninstall(monkeypatch, "omgifol")
    assert main(["doctor", "--no-game"]) == 1
    out = capsys.readouterr().out
    assert "omgifol            MISSING" in out and "omgifol is not installed" in out


def test_a_plain_install_without_training_packages_passes(capsys, monkeypatch):
    uninstall(monkeypatch, "torch", "stable-baselines3")
    assert main(["doctor", "--no-game"]) == 0
    out = capsys.readouterr().out
    assert "torch              not installed" in out and "problems" not in out
    assert out.rstrip().endswith("training needs: pip install 'wadgym[train]'")
