"""Reading a world-model dataset: whole episodes as numpy arrays (read_episodes) and, for training, a PyTorch
IterableDataset of clips of T consecutive steps (WorldModelClips) that DataLoader workers share out by shard.

Step t of an episode holds the frame after its t-th action and that action (step 0: the reset's frame, action
-1), so in a clip `action[i]` is the action that led from `rgb[i - 1]` to `rgb[i]`: a next-frame model reads
frames[:-1] and actions[1:] and predicts frames[1:].
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wadgym.agents.datasets.worldmodel import shards
from wadgym.agents.datasets.worldmodel.episode import FIELDS, IMAGE_FIELDS, IMAGE_MEMBERS
from wadgym.agents.datasets.worldmodel.images import decode

# The per-step fields a clip can carry as tensors (label_table is ragged: read it with read_episodes).
TENSOR_FIELDS = tuple(IMAGE_FIELDS) + tuple(f for f in FIELDS if f != "label_table")
_DTYPES = {"step": np.int64, "action": np.int64, "buttons": np.float32, "random_action": np.bool_,
           "reward": np.float32, "terminated": np.bool_, "truncated": np.bool_, "engine_ended": np.bool_,
           "pose": np.float32, "velocity": np.float32, "variables": np.float32}


def read_episodes(root: str | os.PathLike, split: str = "train", fields: Sequence[str] | None = None,
                  verify: bool = True) -> Iterator[tuple[dict[str, Any], dict[str, np.ndarray | list]]]:
    """(metadata, steps) for each episode of `split`, in order: steps maps each of `fields` (default: every
    recorded one, label_table included) to an array over the episode's steps (images (T, H, W, C) uint8). Each
    shard is checked against index.json first (verify): a damaged one is a DamagedShardError naming it."""
    index = shards.read_index(root)
    for entry in shards.shards_of(index, _check_split(split)):
        yield from episodes_of_shard(root, entry, fields, verify)


def episodes_of_shard(root, entry: dict[str, Any], fields: Sequence[str] | None = None, verify: bool = True):
    """read_episodes for the one shard `entry` of index.json."""
    path = shards.check_shard(root, entry) if verify else Path(root) / entry["name"]
    for metadata, chunks in shards.read_shard(path):
        wanted = list(fields) if fields is not None else metadata["images"] + list(FIELDS)
        yield metadata, episode_arrays(metadata, chunks, wanted, path)


def episode_arrays(metadata: dict[str, Any], chunks: list[dict[str, Any]], fields: Sequence[str],
                   shard: str | os.PathLike = "") -> dict[str, np.ndarray | list]:
    """The episode's `fields` joined over its chunks."""
    width, height = (int(v) for v in metadata["resolution"].split("x"))
    steps: dict[str, Any] = {}
    for field in fields:
        if field in IMAGE_MEMBERS:
            if field not in metadata["images"]:
                raise ValueError(f"field {field!r} was not recorded in this dataset; it has "
                                 f"{', '.join(metadata['images'])}")
            member = (metadata.get("image_members") or IMAGE_MEMBERS)[field]  # format 1: PNG only
            parts = []
            for chunk in chunks:
                strip = decode(chunk[member], member)
                if strip.ndim == 2:
                    strip = strip[..., None]
                parts.append(strip.reshape(-1, height, width, strip.shape[-1]))
            steps[field] = np.concatenate(parts)
        elif field == "label_table":
            steps[field] = [row for chunk in chunks for row in chunk["steps.json"][field]]
        elif field in _DTYPES:
            values = [row for chunk in chunks for row in chunk["steps.json"][field]]
            steps[field] = np.asarray(values, _DTYPES[field])
            if field == "variables" and steps[field].ndim == 1:
                steps[field] = steps[field].reshape(len(values), 0)
        else:
            raise ValueError(f"unknown field {field!r}; valid: {', '.join((*TENSOR_FIELDS, 'label_table'))}")
    lengths = {k: len(v) for k, v in steps.items()}
    if len(set(lengths.values())) > 1 or any(n != metadata["steps"] for n in lengths.values()):
        raise shards.DamagedShardError(shard, f"episode {metadata['episode']}'s fields have {lengths} steps, "
                                              f"its header says {metadata['steps']}")
    return steps


def _check_split(split: str) -> str:
    if split not in shards.SPLITS:
        raise ValueError(f"split={split!r} is not valid; choose one of {', '.join(shards.SPLITS)}")
    return split


def _torch_dataset_base():
    from torch.utils.data import IterableDataset

    return IterableDataset


class WorldModelClips(_torch_dataset_base()):
    """Clips of `clip_length` consecutive steps of one episode of `split`, as dicts of tensors: images
    (T, C, H, W) uint8 (rgb, depth, labels, automap), `action` and `step` int64 (T,), `reward`, `pose` (T, 5),
    `velocity` (T, 3), `variables`, `buttons` float32, the flags bool; plus `episode` and `level_seed` (ints).

    Each epoch the split's shards are shuffled (seed, epoch: set_epoch) and dealt out to the DataLoader's
    workers (worker k reads shards k, k + W, ...: give at least as many shards as workers); a worker reads its
    shards one after another, cuts each episode into clips every `stride` steps (default clip_length: clips
    that do not overlap) from a random offset, and yields them through a shuffle buffer of `buffer` clips.
    shuffle=False: shards, clips and offsets in order. Every shard is checked against index.json before it is
    read (verify): a damaged one raises DamagedShardError naming it."""

    def __init__(self, root: str | os.PathLike, split: str = "train", clip_length: int = 16,
                 fields: Sequence[str] = ("rgb", "action"), stride: int | None = None, shuffle: bool = True,
                 seed: int = 0, buffer: int = 64, verify: bool = True):
        super().__init__()
        self.root, self.split = Path(root), _check_split(split)
        index = shards.read_index(root)
        self.shards = shards.shards_of(index, split)
        if not self.shards:
            raise ValueError(f"{root} has no {split} shards")
        unknown = [f for f in fields if f not in TENSOR_FIELDS]
        if unknown or isinstance(fields, str) or not fields:
            raise ValueError(f"fields: unknown {unknown or fields!r}; valid: {', '.join(TENSOR_FIELDS)} "
                             f"(label_table is ragged: read it with read_episodes)")
        recorded = ["rgb", *("depth" for b in index["settings"]["buffers"] if b == "depth"),
                    *("labels" for b in index["settings"]["buffers"] if b == "labels"),
                    *("automap" for b in index["settings"]["buffers"] if b.startswith("automap"))]
        missing = [f for f in fields if f in IMAGE_FIELDS and f not in recorded]
        if missing:
            raise ValueError(f"fields {missing}: not recorded in {root}; its images: {', '.join(recorded)}")
        for name, value, low in (("clip_length", clip_length, 1), ("stride", stride or clip_length, 1),
                                 ("buffer", buffer, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name}={value!r}: must be a whole number from {low} on")
        self.clip_length, self.stride = clip_length, stride or clip_length
        self.fields, self.shuffle, self.seed, self.buffer, self.verify = tuple(fields), shuffle, seed, buffer, verify
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Another shuffle of shards, offsets and clips (call before each epoch's iteration)."""
        self.epoch = int(epoch)

    def worker_shards(self, worker: int = 0, workers: int = 1) -> list[dict[str, Any]]:
        """The shards worker `worker` of `workers` reads this epoch."""
        order = list(self.shards)
        if self.shuffle:
            permutation = np.random.default_rng([self.seed, self.epoch]).permutation(len(order))
            order = [order[i] for i in permutation]
        return order[worker::workers]

    def __iter__(self):
        from torch.utils.data import get_worker_info

        info = get_worker_info()
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 1)
        rng = np.random.default_rng([self.seed, self.epoch, worker])
        pending: list[dict[str, Any]] = []
        for entry in self.worker_shards(worker, workers):
            for metadata, steps in episodes_of_shard(self.root, entry, self.fields, self.verify):
                for clip in self._clips(metadata, steps, rng):
                    if not self.shuffle:
                        yield clip
                        continue
                    pending.append(clip)
                    if len(pending) >= self.buffer:
                        yield pending.pop(int(rng.integers(len(pending))))
        while pending:
            yield pending.pop(int(rng.integers(len(pending))))

    def _clips(self, metadata: dict[str, Any], steps: dict[str, np.ndarray], rng: np.random.Generator):
        import torch

        length, size = metadata["steps"], self.clip_length
        if length < size:
            return
        offset = int(rng.integers(min(self.stride, length - size + 1))) if self.shuffle else 0
        tensors = {}
        for field, values in steps.items():
            if field in IMAGE_FIELDS:
                values = np.ascontiguousarray(np.moveaxis(values, -1, 1))  # (T, C, H, W)
            tensors[field] = torch.from_numpy(values)
        for start in range(offset, length - size + 1, self.stride):
            clip = {field: values[start:start + size].clone() for field, values in tensors.items()}
            clip["episode"] = int(metadata["episode"])
            clip["level_seed"] = int(metadata["level_seed"] if metadata["level_seed"] is not None else -1)
            yield clip
