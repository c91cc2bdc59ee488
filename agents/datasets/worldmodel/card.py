"""The dataset's card: a README.md in its folder saying what was recorded, how, and how to read it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wadgym.agents.datasets.worldmodel import shards
from wadgym.agents.datasets.worldmodel.episode import FIELDS, IMAGE_FIELDS


def write_card(root: str | Path, index: dict[str, Any]) -> None:
    from wadgym.files import write_atomic

    write_atomic(Path(root) / shards.CARD, card_text(index).encode())


def card_text(index: dict[str, Any]) -> str:
    s = index["settings"]
    lines = [f"# {s['env']}: a wadgym world-model dataset", "",
             f"Recorded by `wadgym worldmodel` (wadgym {index.get('wadgym_version')}, commit "
             f"{index.get('commit') or 'unknown'}, ViZDoom {index.get('vizdoom_version')}). Format "
             f"{shards.FORMAT} version {index['format_version']}: WebDataset tar shards; index.json lists every shard "
             "with its SHA-256.", "", "## Splits", "",
             "| split | episodes | steps | shards | MB | levels |", "|---|---|---|---|---|---|"]
    for split in shards.SPLITS:
        listed = shards.shards_of(index, split)
        if not s["episodes"][split]:
            continue
        kwargs = s["env_kwargs"][split]
        first, count = int(kwargs.get("start_level", 0)), int(kwargs.get("num_levels", 0))
        levels = f"{first}..{first + count - 1}" if count else f"{first} on (unlimited)"
        lines.append(f"| {split} | {sum(len(e['episode_summaries']) for e in listed)} | "
                     f"{sum(e['steps'] for e in listed)} | {len(listed)} | "
                     f"{sum(e['bytes'] for e in listed) / 1e6:.1f} | {levels} |")
    policies = "; ".join(f"{p['weight']:g}: {p['name']}" for p in s["policies"])
    lines += ["", "## How it was played", "",
              f"- Policies (each episode's drawn with these weights): {policies}.",
              f"- Epsilon (the chance a step's action is a uniform random one, recorded per step): {s['epsilon']:g}.",
              f"- Frames: {s['resolution']} RGB, whatever the policy observes; images: "
              f"{', '.join(['rgb'] + [b for b in s['buffers']])}; game variables: "
              f"{', '.join(s['variables']) or 'none asked'}.",
              f"- Episode i of a split is reset with seed {s['seed']} + i; each episode's level seed, engine seed, "
              "policy and level plan are in its `eNNNNNN.episode.json`.",
              "", "## Per step (steps.json, one list per field)", ""]
    lines += [f"- `{name}`: {text}" for name, text in FIELDS.items()]
    image_format = s.get("image_format", "png")
    stored = ("PNG" if image_format == "png" else
              f"rgb and automap as JPEG at quality {image_format.partition(':')[2]} (slightly lossy), depth and "
              f"labels as PNG")
    lines += ["", f"## Images ({stored}; a chunk's frames stacked top to bottom)", ""]
    lines += [f"- `{name}`: {text}" for name, text in IMAGE_FIELDS.items()]
    lines += ["", "## Reading it", "", "```python",
              "from wadgym.agents.datasets.worldmodel import WorldModelClips",
              "clips = WorldModelClips(\"THIS_FOLDER\", split=\"train\", clip_length=16, fields=(\"rgb\", \"action\"))",
              "```", "", "Without wadgym: `webdataset.WebDataset(\"THIS_FOLDER/train-{000000..N}.tar\")` yields each "
              "episode's header and each chunk (see wadgym's docs/datasets.md).", "",
              "## Settings", "", "```json", json.dumps(s, indent=1, sort_keys=True), "```", ""]
    return "\n".join(lines)
