"""The action sets of the envs: each action is the set of buttons held for `frame_skip` tics. DoomEnv's
`action_set=` names one of ACTION_SETS or of its family's own `action_sets` (the families that fight put
ATTACK_ACTION_SETS there); `button_vectors` turns a set into what the engine takes."""

from __future__ import annotations

import vizdoom as vzd

ACTION_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "basic": (
        ("MOVE_FORWARD",),
        ("TURN_LEFT",),
        ("TURN_RIGHT",),
        ("MOVE_FORWARD", "TURN_LEFT"),
        ("MOVE_FORWARD", "TURN_RIGHT"),
    ),
    "extended": (
        ("MOVE_FORWARD",),
        ("TURN_LEFT",),
        ("TURN_RIGHT",),
        ("MOVE_FORWARD", "TURN_LEFT"),
        ("MOVE_FORWARD", "TURN_RIGHT"),
        (),
        ("MOVE_BACKWARD",),
        ("MOVE_LEFT",),
        ("MOVE_RIGHT",),
    ),
}
# Sets with ATTACK, for the families that fight (defend, deathmatch) to put in their `action_sets`: turn and
# shoot, or move as well.
ATTACK_ACTION_SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "attack": (("ATTACK",), ("TURN_LEFT",), ("TURN_RIGHT",), ("TURN_LEFT", "ATTACK"), ("TURN_RIGHT", "ATTACK")),
    "attack_move": (("ATTACK",), ("TURN_LEFT",), ("TURN_RIGHT",), ("TURN_LEFT", "ATTACK"), ("TURN_RIGHT", "ATTACK"),
                    ("MOVE_FORWARD",), ("MOVE_BACKWARD",), ("MOVE_LEFT",), ("MOVE_RIGHT",)),
}
BUTTONS = tuple(n for n in dir(vzd.Button) if n.isupper())  # the names an action set may use


def button_vectors(name: str, combos: tuple[tuple[str, ...], ...]) -> tuple[list[str], list[list[float]]]:
    """The buttons (names, sorted) that the actions `combos` of the action set `name` hold, and each action as
    a vector of 1.0 (held) and 0.0 over them, as DoomGame.make_action takes it; a ValueError naming any
    button ViZDoom does not have."""
    bad = sorted({b for combo in combos for b in combo} - set(BUTTONS))
    if bad:
        raise ValueError(f"action set {name!r}: unknown buttons {bad}; valid: {', '.join(BUTTONS)}")
    buttons = sorted({b for combo in combos for b in combo})
    return buttons, [[float(b in combo) for b in buttons] for combo in combos]
