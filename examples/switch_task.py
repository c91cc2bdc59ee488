"""Press the switch: a task family in one file. A building of rooms is generated per level; a switch
stands in the room farthest from the start; pressing it (USE, facing it) ends the episode with +1.

    wadgym build examples/switch_task.py --preview switch.png     # the WAD and a top-down preview
    wadgym rollout examples/switch_task.py --episodes 3           # headless episodes, random policy
    wadgym train --env examples/switch_task.py --timesteps 20000  # PPO, then trained vs random
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wadgym.envs import (
    ACTION_SETS,
    GRID_LIMITS,
    DoomEnv,
    GridFields,
    centre,
    check_fields,
    check_grid,
    draw_style,
    grid_plan,
    room_distances,
    steer_towards,
)
from wadgym.wads import Actor, Level, MapBuilder

ACS_EXECUTE = 80  # the line special ACS_Execute(script, map, ...), given to the switch as a thing special
SCRIPTS = """#include "zcommon.acs"
global int 1:pressed;                         // Python reads global n as the game variable USERn
global int 2:switch_x;
global int 3:switch_y;
script 1 OPEN { pressed = 0; switch_x = %d; switch_y = %d; }
script 2 (void) { pressed = 1; }              // the switch's special runs it when the player uses it
"""
SWITCH = Actor("TaskSwitch", parent="EvilEye", ednum=20100, flags=["+USESPECIAL"])  # a solid, glowing column


@dataclass(frozen=True)
class Params(GridFields):
    rows: int = 2
    cols: int = 3
    extra_doors: float = 0.3

    def __post_init__(self):
        check_fields(self, GRID_LIMITS, {})
        check_grid(self)


PRESETS = {"default": Params(), "big": Params(rows=4, cols=4)}


def build(rng: np.random.Generator, p: Params) -> Level:
    plan = grid_plan(rng, p)
    start = int(rng.integers(len(plan.cells)))
    goal = int(np.argmax(room_distances(plan, start)))   # the room farthest from the start
    style = draw_style(rng)
    m = MapBuilder()
    rooms = [m.add_room(*cell, wall=style.wall, floor=style.floor, ceiling=style.ceiling, light=style.light)
             for cell in plan.cells]
    for a, b in plan.doors:
        m.connect(rooms[a], rooms[b], width=p.door_width)
    m.add_player_start(*centre(plan.cells[start]), angle=int(rng.integers(4)) * 90)
    switch = centre(plan.cells[goal])
    m.add_thing("TaskSwitch", *switch, special=ACS_EXECUTE, args=(2, 0))
    return Level(map=m, scripts=SCRIPTS % switch, actors=[SWITCH], title="press the switch")


class SwitchEnv(DoomEnv):
    """Press the switch in the room farthest from the start. Reward 1 and the end of the episode when
    it is pressed; score: switches pressed (0 or 1). Actions: the basic set and USE."""

    Params, PRESETS, build = Params, PRESETS, staticmethod(build)
    variables = ("USER1", "USER2", "USER3")  # pressed, switch x, switch y
    score_name = "switches"
    action_sets = {"use": ACTION_SETS["basic"] + (("USE",),)}
    default_action_set = "use"
    max_episode_steps = 500

    def on_reset(self, v) -> None:
        self.pressed, self.switch = False, (v["USER2"], v["USER3"])

    def on_step(self, v) -> tuple[float, bool]:
        pressed = v["USER1"] > 0
        reward, self.pressed = float(pressed and not self.pressed), pressed
        return reward, pressed

    @property
    def score(self) -> float:
        return float(self.pressed)

    def reference_action(self) -> int:
        """Straight at the switch, then USE (not planned around walls: a demo)."""
        pose = self.player_pose()
        near = np.hypot(self.switch[0] - pose[0], self.switch[1] - pose[1]) < 80
        return 5 if near else steer_towards(pose, self.switch)
