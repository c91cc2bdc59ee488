"""The scripted references' aiming and steering helpers, on poses whose answers are known by geometry."""

from __future__ import annotations

import math

import pytest

from wadgym.envs.aiming import FAST_TURN, SLOW_TURN, aim_action, bearing, half_turn, on_aim, steer_towards


@pytest.mark.parametrize("pose, target, off", [
    ((0, 0, 0), (100, 0), 0.0),      # straight ahead
    ((0, 0, 0), (0, 100), 90.0),     # to the left is positive
    ((0, 0, 0), (0, -100), -90.0),
    ((0, 0, 90), (0, 100), 0.0),     # facing north
    ((0, 0, 350), (100, 0), 10.0),   # across 0 degrees
])
def test_bearing(pose, target, off):
    found, distance = bearing(pose, target)
    assert found == pytest.approx(off) and distance == pytest.approx(100.0)


def test_half_turn_is_slow_for_the_first_tics_then_fast():
    assert half_turn(4) == pytest.approx(4 * SLOW_TURN / 2)
    assert half_turn(10) == pytest.approx((6 * SLOW_TURN + 4 * FAST_TURN) / 2)


def test_on_aim_within_half_a_turn_or_the_body():
    assert on_aim(0.0, 1000, 4) and not on_aim(90.0, 1000, 4)
    assert on_aim(10.0, 50, 4) and not on_aim(10.0, 1000, 4)  # 16 units at 50 are 17.7 degrees, at 1000 0.9


@pytest.mark.parametrize("target, action", [((100, 0), 0), ((0, 100), 1), ((0, -100), 2)])
def test_aim_action_fires_or_turns_towards(target, action):
    assert aim_action((0, 0, 0), target, 4, fire=0, left=1, right=2) == action  # fire, turn left, turn right


@pytest.mark.parametrize("degrees, action", [(0, 0), (45, 1), (-45, 2), (15, 3), (-15, 4)])
def test_steer_towards(degrees, action):
    target = (100 * math.cos(math.radians(degrees)), 100 * math.sin(math.radians(degrees)))
    assert steer_towards((0, 0, 0), target) == action
