"""One episode as the recorder keeps it while it plays: per step the engine's frame and buffers (copied into
chunk arrays, encoded when a chunk fills: images.py) and the step's values, then the episode's metadata. What
`record` hands the shard writer; the fields a step holds are listed in FIELDS."""

from __future__ import annotations

import dataclasses
import fractions
from typing import Any

import numpy as np
import vizdoom as vzd

from wadgym.agents.datasets.worldmodel import images as image_codec

POSE = ("POSITION_X", "POSITION_Y", "POSITION_Z", "ANGLE", "PITCH")
VELOCITY = ("VELOCITY_X", "VELOCITY_Y", "VELOCITY_Z")
_POSE = [getattr(vzd.GameVariable, name) for name in POSE]
_VELOCITY = [getattr(vzd.GameVariable, name) for name in VELOCITY]
# Per step (steps.json, one list per field): what each holds. Image fields are in IMAGE_FIELDS.
FIELDS = {
    "step": "the step's number in the episode: 0 is the reset's frame, step t the frame after the t-th action",
    "action": "the action that led to this frame, as the id's action index (-1 at step 0)",
    "buttons": "that action as the engine's button vector (the engine's last action; zeros at step 0)",
    "random_action": "whether epsilon replaced the policy's action by a uniform random one",
    "reward": "the env's reward for the step (0 at step 0)",
    "terminated": "the episode ended here (Gymnasium's terminated)",
    "truncated": "the episode was cut here by the time limit (Gymnasium's truncated)",
    "engine_ended": "the engine ended the episode (death, exit): it drew no new frame, the images repeat the last",
    "pose": "the player's x, y, z (map units), angle and pitch (degrees) after the step",
    "velocity": "the player's velocity x, y, z (map units per tic)",
    "variables": "the asked-for game variables, in the order of index.json's settings.variables",
    "label_table": "the labels buffer's objects: [value, object id, class name, category, x, y, width, height] each",
}
IMAGE_FIELDS = {
    "rgb": "the frame, RGB (H, W, 3)",
    "depth": "the depth buffer (H, W), 0 near .. 255 far",
    "labels": "the labels buffer (H, W): an object's pixels hold its value in the step's label_table; the "
              "map's own are 0 (walls) and 1 (floors, ceilings)",
    "automap": "the automap (H, W, 3)",
}
# The image field -> its member's extension in a shard with PNG images (the default; images.members gives them for
# an image format, and an episode's metadata lists its own: image_members).
IMAGE_MEMBERS = image_codec.members(IMAGE_FIELDS)


def image_fields(buffers) -> list[str]:
    """The image fields recorded with `buffers` (the env's buffers kwarg)."""
    fields = ["rgb"]
    fields += ["depth"] if "depth" in buffers else []
    fields += ["labels"] if "labels" in buffers else []
    fields += ["automap"] if any(b.startswith("automap") for b in buffers) else []
    return fields


class EpisodeBuffer:
    """The steps of one episode: `add(...)` per step, `finish(metadata)` at its end gives (metadata, chunks)."""

    def __init__(self, height: int, width: int, chunk: int, fields: list[str], variables: list[Any],
                 png_level: int = 1, image_format: str = "png"):
        self.chunk, self.fields, self.variables, self.png_level = chunk, fields, variables, png_level
        self.members = image_codec.members(fields, image_format)
        self.quality = image_codec.parse_format(image_format)[1]
        shapes = {"rgb": (height, width, 3), "depth": (height, width), "labels": (height, width),
                  "automap": (height, width, 3)}
        self.images = {f: np.zeros((chunk, *shapes[f]), np.uint8) for f in fields}
        self.chunks: list[dict[str, bytes]] = []
        self.length = 0  # steps written (the reset's included)
        self._values: dict[str, list] = {}
        self._row = 0

    def add(self, game: vzd.DoomGame, state, frame: np.ndarray, action: int, random_action: bool, reward: float,
            terminated: bool, truncated: bool) -> None:
        """One step: the frame the env rendered and, from `state` (None: the engine ended the episode; the
        images of the step before repeat), the buffers; the rest read from `game`."""
        row = self._row
        if state is None:
            previous = (row - 1) % self.chunk
            for array in self.images.values():
                array[row] = array[previous]
        else:
            images = self.images
            images["rgb"][row] = frame
            if "depth" in images:
                images["depth"][row] = state.depth_buffer
            if "labels" in images:
                images["labels"][row] = state.labels_buffer
            if "automap" in images:
                images["automap"][row] = state.automap_buffer
        values = self._values
        if not values:
            values.update({name: [] for name in FIELDS})
        values["step"].append(self.length)
        values["action"].append(int(action))
        values["buttons"].append([float(b) for b in game.get_last_action()] if action >= 0
                                 else [0.0] * game.get_available_buttons_size())
        values["random_action"].append(bool(random_action))
        values["reward"].append(float(reward))
        values["terminated"].append(bool(terminated))
        values["truncated"].append(bool(truncated))
        values["engine_ended"].append(state is None)
        values["pose"].append([game.get_game_variable(v) for v in _POSE])
        values["velocity"].append([game.get_game_variable(v) for v in _VELOCITY])
        values["variables"].append([game.get_game_variable(v) for v in self.variables])
        values["label_table"].append([] if state is None or "labels" not in self.images else
                                [[label.value, label.object_id, label.object_name,
                                  getattr(label, "object_category", ""), label.x, label.y, label.width, label.height]
                                 for label in state.labels])
        self.length += 1
        self._row += 1
        if self._row == self.chunk:
            self._encode()

    def _encode(self) -> None:
        """The chunk so far as image strips (k frames stacked top to bottom) and its steps.json values."""
        rows = self._row
        members = {}
        for field, array in self.images.items():
            strip = array[:rows].reshape(rows * array.shape[1], *array.shape[2:])
            member = self.members[field]
            members[member] = image_codec.encode(strip, member, self.png_level, self.quality)
        members["steps.json"] = self._values
        self.chunks.append(members)
        self._values, self._row = {}, 0

    def finish(self) -> list[dict[str, Any]]:
        """The episode's chunks (the last one possibly shorter), steps.json still as values."""
        if self._row:
            self._encode()
        return self.chunks


def jsonable(value: Any) -> Any:
    """`value` with numpy arrays and numbers, tuples, Fractions and dataclasses made JSON's types."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float, fractions.Fraction)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    return str(value)


def level_plan(env, level_seed: int | None) -> dict[str, Any] | None:
    """The level's plan as built (pure: rebuilt from its seed): its rooms (outline, heights, name) and the things
    placed in the map; with the family's own plan where it has one (e.g. DoomExit's building: `level_plan`)."""
    if level_seed is None:
        return None
    level = env.build_level(level_seed)
    rooms = [{"index": r.index, "name": r.name, "outline": r.outline, "floor_height": r.floor_height,
              "ceiling_height": r.ceiling_height} for r in getattr(level.map, "rooms", [])]
    things = [{"kind": t.kind, "x": t.x, "y": t.y, "angle": t.angle, "tid": t.tid}
              for t in getattr(level.map, "things", [])]
    plan = {"map": level.name, "rooms": rooms, "things": things}
    if callable(getattr(env, "level_plan", None)):
        plan["family_plan"] = env.level_plan(level_seed)
    return jsonable(plan)
