"""Storage formats for world-model datasets, measured on the same recorded chunks (issue 49 §2): WebDataset tar
shards (what `wadgym worldmodel` writes), Lance (pylance) and Parquet (pyarrow).

    python bench/worldmodel_formats.py [--dataset DIR] [--clips 200]

The payload is a recording's own: each chunk's PNG strips (rgb, depth, labels) and its steps.json, one sample
(tar) or row (Lance, Parquet) per chunk, so every format stores the same bytes and only the container differs.
Without --dataset, a recording of DoomItems-v1 (scripted, 16 episodes, depth and labels, 160x120) is made first.
Measured, each in a fresh folder: write time (MB/s), bytes per frame on disk, a sequential read of every chunk
(bytes only, and with the rgb PNGs decoded) and random access: --clips clips of 16 steps at random places, each
read as the one or two chunks that hold it (tar: through an offset index of its members, built once and timed
apart; Lance: `take`; Parquet: the row group that holds the row, row groups of 8 chunks).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

FIELDS = ("rgb.png", "depth.png", "labels.png", "steps.json")


def load_chunks(root: Path) -> list[dict]:
    """Every chunk of the dataset's train split: {"key", field: bytes, "steps": n}."""
    from wadgym.agents.datasets.worldmodel import read_index
    from wadgym.agents.datasets.worldmodel.shards import chunk_key, read_shard, shards_of

    chunks = []
    for entry in shards_of(read_index(root), "train"):
        for metadata, episode_chunks in read_shard(root / entry["name"]):
            for number, members in enumerate(episode_chunks):
                steps = members["steps.json"]
                chunks.append({"key": chunk_key(metadata["episode"], number), "steps": len(steps["step"]),
                               **{f: members[f] for f in FIELDS if f != "steps.json"},
                               "steps.json": json.dumps(steps, separators=(",", ":")).encode()})
    return chunks


def disk_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# --- the three writers -------------------------------------------------------------------------------------------

def write_tar(chunks, folder: Path, shard_bytes: int = 64_000_000) -> list[Path]:
    folder.mkdir(parents=True)
    paths, tar, size, number = [], None, 0, 0
    for chunk in chunks:
        if tar is None:
            paths.append(folder / f"train-{number:06d}.tar")
            tar = tarfile.open(paths[-1], "w", format=tarfile.USTAR_FORMAT)
        for field in FIELDS:
            info = tarfile.TarInfo(f"{chunk['key']}.{field}")
            info.size = len(chunk[field])
            tar.addfile(info, io.BytesIO(chunk[field]))
            size += info.size + 512
        if size >= shard_bytes:
            tar.close()
            tar, size, number = None, 0, number + 1
    if tar is not None:
        tar.close()
    return paths


def arrow_table(chunks):
    import pyarrow as pa

    return pa.table({"key": [c["key"] for c in chunks], "steps": [c["steps"] for c in chunks],
                     **{f.replace(".", "_"): pa.array([c[f] for c in chunks], pa.binary()) for f in FIELDS}})


def write_lance(chunks, folder: Path):
    import lance

    lance.write_dataset(arrow_table(chunks), str(folder))


def write_parquet(chunks, folder: Path, row_group: int = 8):
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    pq.write_table(arrow_table(chunks), folder / "train.parquet", row_group_size=row_group, compression="none")


# --- reading -----------------------------------------------------------------------------------------------------

def decode_rgb(data: bytes) -> np.ndarray:
    from wadgym.agents.datasets.worldmodel.png import decode_png

    return decode_png(data)


def read_tar(paths, decode: bool) -> int:
    import webdataset as wds

    count = 0
    for sample in wds.WebDataset([str(p) for p in paths], shardshuffle=False):
        if decode:
            decode_rgb(sample["rgb.png"])
        count += 1
    return count


def read_lance(folder: Path, decode: bool) -> int:
    import lance

    count = 0
    for batch in lance.dataset(str(folder)).to_batches(columns=["rgb_png", "steps_json"]):
        if decode:
            for data in batch.column("rgb_png").to_pylist():
                decode_rgb(data)
        count += batch.num_rows
    return count


def read_parquet(folder: Path, decode: bool) -> int:
    import pyarrow.parquet as pq

    count = 0
    for batch in pq.ParquetFile(folder / "train.parquet").iter_batches(columns=["rgb_png", "steps_json"]):
        if decode:
            for data in batch.column("rgb_png").to_pylist():
                decode_rgb(data)
        count += batch.num_rows
    return count


def read(name: str, written, target: Path, decode: bool) -> int:
    """Every chunk of the format `name` in order (its rgb PNG decoded with `decode`): how many."""
    if name == "webdataset":
        return read_tar(written, decode)
    return read_lance(target, decode) if name == "lance" else read_parquet(target, decode)


def tar_index(paths) -> dict[str, tuple[Path, int, int]]:
    index = {}
    for path in paths:
        with tarfile.open(path) as tar:
            for member in tar.getmembers():
                index[member.name] = (path, member.offset_data, member.size)
    return index


def random_rows(chunks, clips: int, seed: int = 0) -> list[list[int]]:
    """For each clip of 16 steps at a random place: the rows (chunks) that hold it."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(clips):
        row = int(rng.integers(len(chunks)))
        start = int(rng.integers(chunks[row]["steps"]))
        needed = [row]
        if start + 16 > chunks[row]["steps"] and row + 1 < len(chunks) and \
                chunks[row + 1]["key"].split("_")[0] == chunks[row]["key"].split("_")[0]:
            needed.append(row + 1)
        rows.append(needed)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=None, help="a dataset of `wadgym worldmodel` (default: "
                                                                     "record one)")
    parser.add_argument("--clips", type=int, default=200, help="random clips read (default 200)")
    args = parser.parse_args()
    import lance  # noqa: F401  (imported before any timing: the first use would pay for it)
    import pyarrow.parquet  # noqa: F401
    import webdataset  # noqa: F401

    folder = Path(tempfile.mkdtemp(prefix="wm-formats-"))
    try:
        root = args.dataset
        if root is None:
            from wadgym.agents.datasets.worldmodel import WorldModelConfig, record_world_model

            root = folder / "recorded"
            record_world_model(WorldModelConfig(env="DoomItems-v1", out=root, episodes=16, buffers=("depth", "labels"),
                                                n_envs=2))
        chunks = load_chunks(root)
        frames = sum(c["steps"] for c in chunks)
        payload = sum(len(c[f]) for c in chunks for f in FIELDS)
        print(f"{len(chunks)} chunks, {frames} frames, {payload / 1e6:.1f} MB of payload "
              f"({payload / frames / 1e3:.2f} kB a frame); load average {os.getloadavg()[0]:.2f}")
        rows = random_rows(chunks, args.clips)
        results = {}
        for name, write in (("webdataset", write_tar), ("lance", write_lance), ("parquet", write_parquet)):
            target = folder / name
            start = time.perf_counter()
            written = write(chunks, target)
            write_seconds = time.perf_counter() - start
            size = disk_bytes(target)
            read(name, written, target, False)  # once untimed: the page cache holds every format alike
            start = time.perf_counter()
            assert read(name, written, target, False) == len(chunks)
            sequential = frames / (time.perf_counter() - start)
            start = time.perf_counter()
            read(name, written, target, True)
            decoded = frames / (time.perf_counter() - start)
            random_access, index_seconds = measure_random(name, written, target, rows, [c["key"] for c in chunks])
            results[name] = (payload / 1e6 / write_seconds, size / frames, sequential, decoded, random_access,
                             index_seconds)
        print("\n| format | write MB/s | bytes a frame | sequential read, frames/s | with rgb decoded, frames/s | "
              "random clips of 16/s |")
        print("|---|---|---|---|---|---|")
        for name, (mbs, per_frame, sequential, decoded, random_access, index_seconds) in results.items():
            note = f" (offset index built in {index_seconds:.2f} s)" if index_seconds else ""
            print(f"| {name} | {mbs:.0f} | {per_frame:.0f} | {sequential:.0f} | {decoded:.0f} | "
                  f"{random_access:.0f}{note} |")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def measure_random(name, written, target, rows, keys: list[str]) -> tuple[float, float]:
    """(clips/s, seconds the tar offset index took) of reading `rows` (the chunks of each clip) at random."""
    index_seconds = 0.0
    if name == "webdataset":
        start = time.perf_counter()
        index = tar_index(written)
        index_seconds = time.perf_counter() - start
        handles = {path: open(path, "rb") for path in written}
        start = time.perf_counter()
        for needed in rows:
            for row in needed:
                for field in FIELDS:
                    member = f"{keys[row]}.{field}"
                    path, offset, size = index[member]
                    handle = handles[path]
                    handle.seek(offset)
                    handle.read(size)
        seconds = time.perf_counter() - start
        for handle in handles.values():
            handle.close()
    elif name == "lance":
        import lance

        dataset = lance.dataset(str(target))
        start = time.perf_counter()
        for needed in rows:
            dataset.take(needed)
        seconds = time.perf_counter() - start
    else:
        import pyarrow.parquet as pq

        file = pq.ParquetFile(target / "train.parquet")
        group_rows = file.metadata.row_group(0).num_rows
        start = time.perf_counter()
        for needed in rows:
            for group in sorted({r // group_rows for r in needed}):
                file.read_row_group(group)
        seconds = time.perf_counter() - start
    return len(rows) / seconds, index_seconds



if __name__ == "__main__":
    raise SystemExit(main())
