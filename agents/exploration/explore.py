"""Exploration bonuses for PPO and RecurrentPPO: what `wadgym train --explore KIND[:COEF]` and the `explore:`
hyperparameter say, checked and resolved (this module imports nothing heavy; the bonuses themselves are
wadgym.agents.exploration.bonuses, which needs torch).

A setting names one kind or several joined by `+`, each with an optional coefficient:

    counts                 episodic counts of the position cells the player stood in, coefficient 0.01
    e3b:0.005              E3B's elliptical episodic bonus, coefficient 0.005
    e3b+rnd:0.1            E3B (coefficient 0.01) and RND (coefficient 0.1), summed

In a hyperparameter file `explore:` takes the same text, or a mapping of kind -> coefficient or kind -> its
settings (`explore: {rnd: {coef: 0.05, features: 128}}`). The resolved setting (config.yml's
hyperparams.explore) is the mapping with every setting of every kind written out.

Each step of training, coef x bonus is added to the reward PPO learns from (before the advantages are
computed); the episode's own return (Monitor, rollout/ep_rew_mean, evaluation) stays the task's. The policy
sees only its observations; `counts` reads the player's position from the engine (info["position"]), the
other kinds read the observations. A new kind is one entry of KINDS and one class in agents.exploration.bonuses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_COEF = 0.01


@dataclass(frozen=True)
class Kind:
    """One exploration bonus: its class in wadgym.agents.exploration.bonuses, its settings with their defaults and
    ranges (key -> (default, low, high, whole)), and what it reads."""

    name: str
    bonus_class: str
    summary: str
    settings: dict[str, tuple[float, float | None, float | None, bool]] = field(default_factory=dict)
    needs_position: bool = False   # reads info["position"] (the engine's POSITION_X/Y)
    episodic: bool = True          # its memory is cleared when an episode ends


KINDS: dict[str, Kind] = {
    "counts": Kind(
        "counts", "CountBonus",
        "episodic counts of position cells: 1/sqrt(n) for the n-th visit this episode of the cell stood in",
        {"cell": (64, 8, 1024, True)}, needs_position=True),
    "e3b": Kind(
        "e3b", "E3BBonus",
        "E3B (Henaff et al. 2022): phi(s)^T C^-1 phi(s) over inverse-dynamics features, C reset each episode",
        {"features": (256, 4, 4096, True), "ridge": (0.1, 1e-6, None, False), "learning_rate": (3e-4, 0.0, 1.0, False),
         "epochs": (1, 1, 100, True), "batch_size": (256, 2, None, True),
         "update_proportion": (0.25, 0.0, 1.0, False)}),
    "rnd": Kind(
        "rnd", "RNDBonus",
        "Random Network Distillation (Burda et al. 2018): a predictor's error on a fixed random net's features, "
        "normalised by the running std of its discounted intrinsic returns",
        {"features": (256, 4, 4096, True), "learning_rate": (1e-4, 0.0, 1.0, False), "epochs": (1, 1, 100, True),
         "batch_size": (256, 2, None, True), "update_proportion": (0.25, 0.0, 1.0, False),
         "gamma": (0.99, 0.0, 1.0, False)}, episodic=False),
}

SYNTAX = "KIND[:COEF] joined by +, e.g. counts, e3b:0.005, e3b+rnd:0.1"


def valid_kinds() -> str:
    return ", ".join(KINDS)


def parse_explore(value: Any, where: str = "explore") -> dict[str, dict[str, Any]] | None:
    """The resolved exploration setting of `value` (text, a mapping, or None/"none"/"" for none): kind ->
    {"coef": ..., every setting of the kind}, in the order given. A ValueError names what is wrong and what is
    valid (an unknown kind or setting, a negative or non-numeric coefficient, a kind given twice)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "off")):
        return None
    if isinstance(value, str):
        terms = [term.strip() for term in value.split("+")]
        entries: list[tuple[str, Any]] = []
        for term in terms:
            name, _, coef = term.partition(":")
            entries.append((name.strip(), {"coef": _coef(coef.strip(), where, name)} if coef.strip() else {}))
    elif isinstance(value, dict):
        entries = []
        for name, setting in value.items():
            if isinstance(setting, dict):
                entries.append((name, dict(setting)))
            else:
                entries.append((name, {"coef": setting}))
    else:
        raise ValueError(f"{where}={value!r} is not valid; give {SYNTAX}, or a mapping of kind -> coefficient")
    resolved: dict[str, dict[str, Any]] = {}
    for name, given in entries:
        if name not in KINDS:
            raise ValueError(f"{where}: unknown kind {name!r}; valid kinds: {valid_kinds()} ({SYNTAX})")
        if name in resolved:
            raise ValueError(f"{where}: {name} is given twice; give each kind once ({SYNTAX})")
        resolved[name] = _settings(KINDS[name], given, where)
    if not resolved:
        raise ValueError(f"{where}={value!r} names no kind; valid kinds: {valid_kinds()}")
    return resolved


def _coef(text: Any, where: str, name: str) -> float:
    from wadgym.envs.checks import check_number

    try:
        number = float(text) if isinstance(text, str) else text
    except ValueError:
        raise ValueError(f"{where}: {name}'s coefficient {text!r} is not a number; give {SYNTAX}") from None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise ValueError(f"{where}: {name}'s coefficient {text!r} is not a number; give {SYNTAX}")
    if number < 0 or number != number:
        raise ValueError(f"{where}: {name}'s coefficient {text!r} is negative; give a number >= 0 ({SYNTAX})")
    return float(check_number(f"{where} {name} coef", number, 0.0))


def _settings(kind: Kind, given: dict[str, Any], where: str) -> dict[str, Any]:
    from wadgym.envs.checks import check_number

    unknown = sorted(set(given) - {"coef", *kind.settings})
    if unknown:
        raise ValueError(f"{where}: {kind.name} has no setting {', '.join(unknown)}; its settings: "
                         f"{', '.join(['coef', *kind.settings])}")
    settings = {"coef": _coef(given.get("coef", DEFAULT_COEF), where, kind.name)}
    for key, (default, low, high, whole) in kind.settings.items():
        value = given.get(key, default)
        if whole and isinstance(value, float) and value.is_integer():
            value = int(value)
        settings[key] = check_number(f"{where} {kind.name} {key}", value, low, high, whole=whole)
    return settings


def describe(setting: dict[str, dict[str, Any]] | None) -> str:
    """The setting as `--explore` text (coefficients only), e.g. "e3b:0.01+rnd:0.1"; "none" for none."""
    if not setting:
        return "none"
    return "+".join(f"{name}:{values['coef']:g}" for name, values in setting.items())


def needs_position(setting: dict[str, dict[str, Any]] | None) -> list[str]:
    """The kinds of `setting` that read the player's position (info["position"])."""
    return [name for name in (setting or {}) if KINDS[name].needs_position]
