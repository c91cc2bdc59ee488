"""DoomEnv.human_action and human_idle: the keys a person holds in `wadgym play` (spectator mode) mapped to an
action of the env's action set, over every action set of every family. No key held is the set's action without
buttons where it has one; else a stand-in action with the step flagged idle, which cloning leaves out. (The
engine's side, a person's keys in the real window, is tests/agents/test_play.py's.)"""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.envs.registration import load_env_creator

from wadgym.envs import ACTION_SETS


def _cases() -> list[tuple[str, str]]:
    """(an id of each single-agent family, each action set that family has)."""
    ids: dict[str, str] = {}
    for spec in gym.registry.values():
        if str(spec.entry_point).startswith("wadgym.envs.families."):
            ids.setdefault(str(spec.entry_point), spec.id)
    return [(env_id, name) for entry_point, env_id in ids.items()
            for name in {**ACTION_SETS, **load_env_creator(entry_point).action_sets}]


CASES = _cases()


@pytest.mark.parametrize("env_id, action_set", CASES, ids=[f"{i}-{a}" for i, a in CASES])
def test_keys_map_to_their_action_and_no_key_to_the_pause(env_id, action_set, make_env):
    env = make_env(env_id, action_set=action_set).unwrapped
    actions = env.action_buttons()
    buttons = sorted({b for held in actions for b in held})  # the engine's order: DoomEnv sorts the set's buttons

    def pressed(*names: str) -> list[bool]:
        return [b in names for b in buttons]

    for index, held in enumerate(actions):  # exactly an action's buttons: that action, not a pause
        assert env.human_action(pressed(*held)) == index and not env.human_idle(pressed(*held))
    nothing = pressed()
    if () in actions:  # a pause is an action of the set
        assert env.human_action(nothing) == actions.index(()) and not env.human_idle(nothing)
    else:  # no action says "stand still": the nearest (the first of fewest buttons) stands in, flagged idle
        fewest = min(len(held) for held in actions)
        assert env.human_action(nothing) == next(i for i, held in enumerate(actions) if len(held) == fewest)
        assert env.human_idle(nothing)


def test_the_default_items_set_flags_a_pause_and_extended_records_it(make_env):
    """The case a person meets first: DoomItems-v1's "basic" set would record a pause as MOVE_FORWARD."""
    basic = make_env("DoomItems-v1").unwrapped
    assert basic.action_buttons()[0] == ("MOVE_FORWARD",)
    assert basic.human_action([False] * 3) == 0 and basic.human_idle([False] * 3)
    assert basic.human_action([True, False, False]) == 0 and not basic.human_idle([True, False, False])
    extended = make_env("DoomItems-v1", action_set="extended").unwrapped
    assert extended.human_action([False] * 6) == 5 and not extended.human_idle([False] * 6)
