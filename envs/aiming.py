"""Aiming and steering for scripted reference policies (DoomEnv.reference_action): where a target lies off
the player's facing, whether a shot at it hits, and the action that turns to it or walks to it."""

from __future__ import annotations

import math

# The engine's turn per tic (degrees): slow for the first SLOW_TURN_TICS tics a turn key is held, then fast.
SLOW_TURN, FAST_TURN, SLOW_TURN_TICS = 320 * 360 / 65536, 640 * 360 / 65536, 6


def half_turn(frame_skip: int) -> float:
    """Half the degrees one step's turn (a turn key held `frame_skip` tics from standing) turns: a scripted aimer
    fires when its target is this near the aim (or within the target's body)."""
    slow = min(frame_skip, SLOW_TURN_TICS)
    return (slow * SLOW_TURN + (frame_skip - slow) * FAST_TURN) / 2


def bearing(pose: tuple[float, float, float], target: tuple[float, float]) -> tuple[float, float]:
    """How far `target` (x, y) is off the facing of `pose` (x, y, degrees), in degrees (-180 to 180, positive
    to the left), and how far away it is (map units)."""
    x, y, angle = pose
    off = (math.degrees(math.atan2(target[1] - y, target[0] - x)) - angle + 540) % 360 - 180
    return off, math.hypot(target[0] - x, target[1] - y)


def on_aim(off: float, distance: float, frame_skip: int) -> bool:
    """Whether a target `off` degrees off the aim at `distance` is hit: within half a step's turn, or within
    16 map units of its centre (a body's radius is 16 or more)."""
    return abs(off) <= max(half_turn(frame_skip), math.degrees(math.atan2(16, distance)))


def aim_action(pose: tuple[float, float, float], target: tuple[float, float], frame_skip: int,
               fire: int, left: int, right: int) -> int:
    """The action that aims from `pose` (x, y, degrees) at `target` (x, y): `fire` when on aim (on_aim), else
    `left` or `right` towards it."""
    off, distance = bearing(pose, target)
    if on_aim(off, distance, frame_skip):
        return fire
    return left if off > 0 else right


def steer_towards(pose: tuple[float, float, float], target: tuple[float, float]) -> int:
    """The "basic" action that heads from `pose` (x, y, degrees) for `target`: turn in place when it is far
    off the heading (walking while turning would circle it), forward and turn when a little off, else forward."""
    off, _ = bearing(pose, target)
    if abs(off) > 30:
        return 1 if off > 0 else 2  # turn left / right
    if abs(off) > 8:
        return 3 if off > 0 else 4  # forward + turn
    return 0  # forward
