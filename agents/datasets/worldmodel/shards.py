"""A world-model dataset's folder: tar shards in WebDataset's layout, each written whole and named in index.json
with its SHA-256, and the readers that refuse a damaged shard by name.

    OUT/index.json            what was recorded (the settings, the splits, the episodes) and every finished shard:
                              name, split, bytes, sha256, its episodes and steps
    OUT/README.md             the dataset's card
    OUT/train-000000.tar ...  the train split's shards, whole episodes each, in episode order
    OUT/test-000000.tar ...   the held-out split's

A shard holds, per episode e (its number in the split), in this order: `eEEEEEE.episode.json` (the episode's
metadata), then per chunk c of up to `chunk` steps `eEEEEEE_cCCCC.rgb.png` (the chunk's frames stacked top to
bottom: (k*H, W, 3); `.rgb.jpg` with image_format jpeg), `.depth.png`, `.labels.png`, `.automap.png` (or `.jpg`;
those recorded) and `.steps.json` (the chunk's per-step values, one list per field). WebDataset groups the members
by the name before the first dot, so `webdataset.WebDataset(url)` yields one sample per episode header and one per
chunk.

A shard is written to a temporary name beside it and renamed when complete, then listed in index.json (itself
replaced atomically): a killed recording leaves whole shards (and a temporary file a resume removes), never half
of one. Every member has mtime 0 and owner 0, so the same episodes give the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wadgym.files import atomic_path, write_atomic

FORMAT = "wadgym-worldmodel"
FORMAT_VERSION = 2  # 2: colour images may be JPEG (members rgb.jpg, automap.jpg; the episode's image_members)
READ_VERSIONS = (1, 2)  # version 1 held PNG images only
INDEX = "index.json"
CARD = "README.md"
SPLITS = ("train", "test")
SHARD_NAME = re.compile(r"^(train|test)-(\d{6})\.tar$")
# What a killed writer leaves: atomic_path's temporary names (".<stem>.<hex>.tmp<suffix>") of shards or the index.
LEFTOVER = re.compile(r"^\.(train|test)-\d{6}\.[0-9a-f]+\.tmp\.tar$|^\.index\.[0-9a-f]+\.tmp\.json$")


class DamagedShardError(ValueError):
    """A shard whose bytes are not those index.json lists (missing, cut short, changed): `shard` names it."""

    def __init__(self, shard: str | os.PathLike, why: str):
        self.shard, self.why = str(shard), why
        super().__init__(f"damaged shard {self.shard}: {why}; it is not read as data (record it again with "
                         f"`wadgym worldmodel ... --resume`, which re-records a damaged shard and those after it)")


def shard_name(split: str, number: int) -> str:
    return f"{split}-{number:06d}.tar"


def episode_key(episode: int) -> str:
    return f"e{episode:06d}"


def chunk_key(episode: int, chunk: int) -> str:
    return f"e{episode:06d}_c{chunk:04d}"


# --- index.json ------------------------------------------------------------------------------------------------

def read_index(root: str | os.PathLike) -> dict[str, Any]:
    """The dataset's index.json, or a ValueError saying the folder holds no wadgym world-model dataset."""
    path = Path(root) / INDEX
    try:
        index = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{root} holds no wadgym world-model dataset (no {INDEX})") from None
    except (OSError, ValueError) as error:
        raise ValueError(f"{path} cannot be read: {error}") from error
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise ValueError(f"{path} is not a wadgym world-model dataset's index (format {FORMAT!r})")
    if index.get("format_version") not in READ_VERSIONS:
        raise ValueError(f"{path}: format version {index.get('format_version')!r}; this wadgym reads "
                         f"versions {', '.join(map(str, READ_VERSIONS))}")
    return index


def write_index(root: str | os.PathLike, index: dict[str, Any]) -> None:
    write_atomic(Path(root) / INDEX, (json.dumps(index, indent=1, sort_keys=True) + "\n").encode())


def shards_of(index: dict[str, Any], split: str | None = None) -> list[dict[str, Any]]:
    """The finished shards index.json lists (of `split`, or all), in order."""
    return [s for s in index.get("shards", []) if split is None or s["split"] == split]


# --- checking -----------------------------------------------------------------------------------------------------

def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_shard(root: str | os.PathLike, entry: dict[str, Any]) -> Path:
    """The path of the shard `entry` (of index.json) when its size and SHA-256 are those listed; else a
    DamagedShardError naming it."""
    path = Path(root) / entry["name"]
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DamagedShardError(path, "it is missing") from None
    if size != entry["bytes"]:
        raise DamagedShardError(path, f"{size} bytes, where index.json lists {entry['bytes']}")
    if sha256_of(path) != entry["sha256"]:
        raise DamagedShardError(path, "its SHA-256 is not the one index.json lists")
    return path


def damaged_shards(root: str | os.PathLike, index: dict[str, Any] | None = None) -> list[DamagedShardError]:
    """Every listed shard that fails check_shard, as its error (empty: all whole)."""
    index = read_index(root) if index is None else index
    damaged = []
    for entry in shards_of(index):
        try:
            check_shard(root, entry)
        except DamagedShardError as error:
            damaged.append(error)
    return damaged


def remove_leftovers(root: str | os.PathLike, index: dict[str, Any]) -> list[str]:
    """Remove what a killed recording left in `root` that index.json does not list: temporary files of shards
    and of the index, and shards written but not yet listed. Returns their names."""
    listed = {s["name"] for s in shards_of(index)}
    removed = []
    for path in sorted(Path(root).iterdir()):
        if LEFTOVER.match(path.name) or (SHARD_NAME.match(path.name) and path.name not in listed):
            path.unlink()
            removed.append(path.name)
    return removed


# --- writing ------------------------------------------------------------------------------------------------------

class ShardWriter:
    """One shard being written: episodes appended in order to a temporary file, renamed to `name` by finish()."""

    def __init__(self, root: str | os.PathLike, split: str, number: int):
        self.root, self.split, self.number = Path(root), split, number
        self.name = shard_name(split, number)
        self._context = atomic_path(self.root / self.name)
        self._temporary = self._context.__enter__()
        self._file = open(self._temporary, "wb")
        self._tar = tarfile.open(fileobj=self._file, mode="w", format=tarfile.USTAR_FORMAT)
        self.episodes: list[dict[str, Any]] = []  # each episode's summary, as index.json lists it
        self.steps = 0

    @property
    def size(self) -> int:
        return self._file.tell()

    def add_episode(self, episode: int, metadata: dict[str, Any], chunks: list[dict[str, bytes]],
                    summary: dict[str, Any]) -> None:
        """Append episode `episode`: its metadata (episode.json), then each chunk's members (ext -> bytes)."""
        self._add(f"{episode_key(episode)}.episode.json", _json_bytes(metadata))
        for number, members in enumerate(chunks):
            for ext, data in members.items():
                self._add(f"{chunk_key(episode, number)}.{ext}", data)
        self.episodes.append(summary)
        self.steps += summary["steps"]

    def _add(self, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode, info.uid, info.gid = len(data), 0, 0o644, 0, 0
        self._tar.addfile(info, io.BytesIO(data))

    def finish(self) -> dict[str, Any]:
        """Close the shard, flush it to disk, give it its name; its entry for index.json."""
        self._tar.close()
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        size = self._temporary.stat().st_size
        digest = sha256_of(self._temporary)
        self._context.__exit__(None, None, None)  # the rename
        return {"name": self.name, "split": self.split, "bytes": size, "sha256": digest,
                "episodes": [self.episodes[0]["episode"], self.episodes[-1]["episode"]], "steps": self.steps,
                "episode_summaries": self.episodes}

    def abandon(self) -> None:
        """Drop the unfinished shard: its temporary file is removed."""
        try:
            self._tar.close()
            self._file.close()
        finally:
            self._temporary.unlink(missing_ok=True)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


# --- reading ------------------------------------------------------------------------------------------------------

def read_shard(path: str | os.PathLike) -> Iterator[tuple[dict[str, Any], list[dict[str, bytes]]]]:
    """(episode metadata, its chunks: ext -> bytes each, steps.json parsed) for each episode of the shard at
    `path`, in order. Check the shard first (check_shard): this reads what is there. A shard that is not a tar
    file of this layout is a DamagedShardError naming it."""
    metadata, chunks = None, []
    try:
        with tarfile.open(path, mode="r|") as tar:
            current_key, members = None, {}
            for member in tar:
                key, _, ext = member.name.partition(".")
                data = tar.extractfile(member).read()
                if key != current_key and members:
                    metadata, chunks, done = _collect(current_key, members, metadata, chunks)
                    if done is not None:
                        yield done
                    members = {}
                current_key = key
                members[ext] = data
            if members:
                metadata, chunks, done = _collect(current_key, members, metadata, chunks)
                if done is not None:
                    yield done
    except (tarfile.TarError, KeyError, ValueError, EOFError) as error:
        raise DamagedShardError(path, f"not a shard of this layout ({error})") from error
    if metadata is not None:
        yield metadata, chunks


def _collect(key: str, members: dict[str, bytes], metadata, chunks):
    """Take one sample's members: an episode header starts an episode (returning the previous one, if any,
    as done); a chunk is added to the current episode."""
    if "episode.json" in members:
        done = (metadata, chunks) if metadata is not None else None
        return json.loads(members["episode.json"]), [], done
    if metadata is None or not key.startswith(episode_key(metadata["episode"]) + "_c"):
        raise ValueError(f"the chunk {key} comes outside its episode")
    members["steps.json"] = json.loads(members["steps.json"])
    chunks.append(members)
    return metadata, chunks, None
