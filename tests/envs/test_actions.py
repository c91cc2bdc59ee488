"""The action sets and their button vectors (the env's action space over them is in test_doom_env.py)."""

from __future__ import annotations

import pytest

from wadgym.envs.actions import ACTION_SETS, ATTACK_ACTION_SETS, BUTTONS, button_vectors


@pytest.mark.parametrize("name", sorted({**ACTION_SETS, **ATTACK_ACTION_SETS}))
def test_each_shared_set_becomes_one_vector_per_action(name):
    combos = {**ACTION_SETS, **ATTACK_ACTION_SETS}[name]
    buttons, vectors = button_vectors(name, combos)
    assert buttons == sorted(set(buttons)) and set(buttons) <= set(BUTTONS)
    assert len(vectors) == len(combos)
    for combo, vector in zip(combos, vectors):
        assert set(vector) <= {0.0, 1.0} and len(vector) == len(buttons)
        assert {b for b, held in zip(buttons, vector) if held} == set(combo)


def test_the_empty_action_holds_nothing():
    buttons, vectors = button_vectors("extended", ACTION_SETS["extended"])
    assert ACTION_SETS["extended"][5] == () and vectors[5] == [0.0] * len(buttons)


def test_an_unknown_button_is_named():
    with pytest.raises(ValueError, match=r"action set 'jump': unknown buttons \['JUMPP'\]; valid: .*MOVE_FORWARD"):
        button_vectors("jump", (("MOVE_FORWARD",), ("JUMPP",)))
