"""World-model recording and loading speed (issue 49, docs/datasets.md): frames/s of `wadgym worldmodel` at
160x120 RGB with depth and labels against bare ViZDoom engines rendering the same buffers, GB per hour of play,
and the PyTorch loader's clips/s against the recording's.

    python bench/worldmodel_speed.py [--env DoomItems-v1] [--n-envs 2] [--episodes 24] [--run RUN] [--rounds 2]

- bare engines: N bare DoomGames (wadgym.envs.runtime.engine.make_game: the env's buttons, 160x120 RGB24, depth
  and labels buffers on, frame skip 4), each stepped by a thread of its own with random actions, reading the
  screen, depth and labels of every state: the ceiling;
- recording, scripted: record_world_model on N engines, the env's scripted reference, depth and labels, the
  frames encoded and written to shards; its rate is taken between the first and the last episode handed to the
  shard writer (engine start and WAD building left out); with PNG images at level 1 (the default), at level 0,
  and with the frames as JPEG (`image_format="jpeg"`, quality 95);
- recording, trained (with --run): the same with a run's policy (its network on every engine's observation),
  PNG and JPEG;
- the loader: WorldModelClips over the scripted recordings' train split (PNG, JPEG), clips of 16 frames (rgb
  and action), a DataLoader with 2 workers and batches of 16, for at least --seconds (epochs repeated);
- GB per hour of play: the shards' bytes per step times 35 / 4 steps a second of game time.

Each round runs the bare engines, then each recording, into a fresh folder; printed are the medians over
rounds and each ratio (recording / bare of the same round). The machine's load average is printed: the
figures fall on a busy machine, the ratios less so.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

FRAME_SKIP = 4
TICRATE = 35
BUFFERS = ("depth", "labels")


def tree_cpu() -> float:
    """CPU seconds so far of this process and every process it started that is still running (the engines)."""
    import psutil

    processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def bare_loop(game, actions: list[list[float]], seed: int, seconds: float, results: list, slot: int) -> None:
    """Random actions on a started bare game for `seconds`, reading the screen, depth and labels of every state;
    results[slot] = steps/s. make_action releases the GIL: one thread per game keeps every engine busy."""
    rng = np.random.default_rng(seed)
    game.set_seed(seed)
    game.new_episode()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if game.is_episode_finished() or game.get_episode_time() > 300 * FRAME_SKIP:
            game.new_episode()
        game.make_action(actions[int(rng.integers(len(actions)))], FRAME_SKIP)
        state = game.get_state()
        if state is not None:
            _ = (state.screen_buffer, state.depth_buffer, state.labels_buffer)
        steps += 1
    results[slot] = steps / (time.perf_counter() - start)


def bare_engines(env_id: str, n: int, seconds: float) -> tuple[float, float]:
    """(steps/s, CPU seconds a step) of n bare games (wadgym.envs.runtime.engine.make_game with the env's
    buttons, 160x120 RGB24, depth and labels), each stepped by a thread of its own, on the env's first
    training level."""
    import gymnasium as gym
    import vizdoom as vzd

    import wadgym  # noqa: F401  (registers the ids)
    from wadgym.agents.datasets.worldmodel.config import training_kwargs
    from wadgym.envs.runtime.engine import enable_buffers, make_game

    env = gym.make(env_id, **training_kwargs(env_id))
    env.reset(seed=0)
    wad, map_name = str(env.unwrapped.wad_path), env.unwrapped.map
    buttons = list(env.unwrapped.game.get_available_buttons())
    env.close()
    games = []
    for _ in range(n):
        game = make_game(wad, map_name, resolution=vzd.ScreenResolution.RES_160X120,
                         screen_format=vzd.ScreenFormat.RGB24, buttons=buttons, variables=[])
        enable_buffers(game, BUFFERS)
        game.init()
        games.append(game)
    actions = np.eye(len(buttons)).tolist()
    results = [0.0] * n
    threads = [threading.Thread(target=bare_loop, args=(game, actions, i, seconds, results, i))
               for i, game in enumerate(games)]
    cpu = tree_cpu()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu = tree_cpu() - cpu
    for game in games:
        game.close()
    rate = sum(results)
    return rate, cpu / (rate * seconds)


def record(env_id: str, out: Path, n: int, episodes: int, policy: str, png_level: int = 1,
           image_format: str = "png") -> dict:
    """A recording's steady rate (steps/s between its first and last episode written), the CPU seconds a step
    costs meanwhile (this process and its engines) and its bytes per step."""
    from wadgym.agents.datasets.worldmodel import WorldModelConfig, read_index, record_world_model

    marks: list[tuple[float, float, int]] = []
    config = WorldModelConfig(env=env_id, out=out, policies=((policy, 1.0),), episodes=episodes, buffers=BUFFERS,
                              n_envs=n, shard_mb=16, png_level=png_level, image_format=image_format)
    result = record_world_model(config, on_episode=lambda s: marks.append((time.perf_counter(), tree_cpu(),
                                                                            s["steps"])))
    (t0, cpu0, _), (t1, cpu1, _) = marks[0], marks[-1]
    steps = sum(s for _, _, s in marks[1:])
    index = read_index(out)
    total_bytes = sum(s["bytes"] for s in index["shards"])
    return {"rate": steps / (t1 - t0), "cpu": (cpu1 - cpu0) / steps, "steps": result.steps,
            "bytes_per_step": total_bytes / result.steps, "seconds": result.seconds}


def loader_rate(root: Path, seconds: float, workers: int = 2, clip: int = 16) -> float:
    import torch

    from wadgym.agents.datasets.worldmodel import WorldModelClips

    clips = WorldModelClips(root, "train", clip, fields=("rgb", "action"))
    loader = torch.utils.data.DataLoader(clips, batch_size=16, num_workers=workers, persistent_workers=False)
    count, epoch, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        clips.set_epoch(epoch)
        for batch in loader:
            count += len(batch["action"])
        epoch += 1
    return count / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="DoomItems-v1")
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=24, help="episodes a recording plays (default 24)")
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds of the bare engines and the loader")
    parser.add_argument("--run", default=None, help="a run folder of `wadgym train` for --env: the trained row")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
    rows: dict[str, list[float]] = {}
    folder = Path(tempfile.mkdtemp(prefix="wm-speed-"))
    recordings = [("scripted", "scripted", 1, "png"), ("scripted, PNG level 0", "scripted", 0, "png"),
                  ("scripted, JPEG", "scripted", 1, "jpeg")]
    recordings += [("trained", args.run, 1, "png"), ("trained, JPEG", args.run, 1, "jpeg")] if args.run else []
    loaded = {"loader": "scripted", "loader, JPEG": "scripted, JPEG"}  # loader row -> the recording it reads
    try:
        for round_number in range(args.rounds):
            bare, bare_cpu = bare_engines(args.env, args.n_envs, args.seconds)
            rows.setdefault("bare", []).append(bare)
            rows.setdefault("bare cpu", []).append(bare_cpu)
            for name, policy, level, image_format in recordings:
                out = folder / f"{name.replace(' ', '_').replace(',', '')}-{round_number}"
                measured = record(args.env, out, args.n_envs, args.episodes, policy, level, image_format)
                rows.setdefault(name, []).append(measured["rate"])
                rows.setdefault(f"{name} ratio", []).append(measured["rate"] / bare)
                rows.setdefault(f"{name} cpu ratio", []).append(bare_cpu / measured["cpu"])
                rows.setdefault(f"{name} bytes/step", []).append(measured["bytes_per_step"])
                print(f"round {round_number}: bare {bare:.0f} steps/s ({bare_cpu * 1e3:.2f} CPU ms a step); {name} "
                      f"{measured['rate']:.0f} steps/s ({measured['rate'] / bare:.2f}; {measured['cpu'] * 1e3:.2f} CPU "
                      f"ms a step), {measured['bytes_per_step'] / 1e3:.1f} kB/step, load {os.getloadavg()[0]:.2f}",
                      flush=True)
            for row, name in loaded.items():
                rate = loader_rate(folder / f"{name.replace(' ', '_').replace(',', '')}-{round_number}", args.seconds)
                rows.setdefault(row, []).append(rate)
                print(f"round {round_number}: {row} {rate:.1f} clips/s of 16 frames (2 workers)", flush=True)
        median = {k: statistics.median(v) for k, v in rows.items()}
        print(f"\n{args.env}, {args.n_envs} engines, 160x120 RGB + depth + labels, medians of {args.rounds} rounds:")
        print(f"bare engines: {median['bare']:.0f} frames/s, {median['bare cpu'] * 1e3:.2f} CPU ms a frame")
        for name, _, _, _ in recordings:
            gb_hour = median[f"{name} bytes/step"] * TICRATE / FRAME_SKIP * 3600 / 1e9
            print(f"recording, {name}: {median[name]:.0f} frames/s, {median[f'{name} ratio']:.2f} of bare "
                  f"(CPU a frame: bare's / recording's {median[f'{name} cpu ratio']:.2f}); "
                  f"{median[f'{name} bytes/step'] / 1e3:.1f} kB a frame, {gb_hour:.2f} GB per hour of play")
        for row, name in loaded.items():
            record_clips = median[name] / 16
            print(f"{row}: {median[row]:.1f} clips/s of 16 frames (2 workers) against the {name} recording's "
                  f"{record_clips:.1f} clips/s: {median[row] / record_clips:.1f}x")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
