"""Soak: many episodes of one env with random actions; memory and leftovers, not speed, are the point.

    python bench/soak.py [--episodes 3000] [--every 1000] [--env DoomItems-v0] [--max-episode-steps N]
                         [--remake-every N]

Every `--every` episodes it prints episodes/s and steps/s of that block, the resident memory (RSS) of
this Python process and of the env's engine, and how many engines and /dev/shm segments of this run
exist. The env is closed and made anew every `--remake-every` episodes (0: never), so engines are
started and stopped too. At the end, after the last close, it reports what is left: engines still
running, segments not removed, other child processes; the exit status is 1 if anything is.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time

import gymnasium as gym
import numpy as np
import psutil

import wadgym  # noqa: F401  (registers the envs)
from wadgym.envs.runtime import engine, watchdog

MB = 1024 * 1024


class Soak:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.instances: set[str] = set()
        self.env = None
        self.engine_rss: list[float] = []

    def make(self) -> None:
        kwargs = {"max_episode_steps": self.args.max_episode_steps} if self.args.max_episode_steps else {}
        self.env = gym.make(self.args.env, **kwargs)

    def note_engines(self) -> list[psutil.Process]:
        engines = engine.child_engines()
        for process in engines:
            self.instances.add(watchdog.instance_id(process.cmdline()))
        return engines

    def segments(self) -> list[str]:
        names = os.listdir(watchdog.SHM_DIR) if os.path.isdir(watchdog.SHM_DIR) else []
        return [n for n in names if n.startswith(watchdog.SEGMENT_BASES) and n.endswith(tuple(self.instances))]

    def run(self) -> int:
        args = self.args
        rng = np.random.default_rng(args.seed)
        print(f"soak: {args.env}, {args.episodes} episodes"
              + (f" of at most {args.max_episode_steps} steps" if args.max_episode_steps else "")
              + ", random actions, env made anew "
              + (f"every {args.remake_every} episodes" if args.remake_every else "never"))
        print(f"{'episodes':>8} {'episodes/s':>10} {'steps/s':>8} {'python RSS MB':>13} {'engine RSS MB':>13} "
              f"{'engines':>7} {'segments':>8}")
        python = psutil.Process()
        first_python = None
        block_start, block_steps = time.perf_counter(), 0
        self.make()
        for episode in range(1, args.episodes + 1):
            if args.remake_every and episode > 1 and (episode - 1) % args.remake_every == 0:
                self.env.close()
                self.make()
            self.env.reset(seed=args.seed + episode)
            if args.remake_every and (episode - 1) % args.remake_every == 0:
                self.note_engines()  # each new engine's segments are looked for at the end
            done = False
            while not done:
                _, _, terminated, truncated, _ = self.env.step(int(rng.integers(self.env.action_space.n)))
                block_steps += 1
                done = terminated or truncated
            if episode % args.every == 0 or episode == args.episodes:
                now = time.perf_counter()
                engines = self.note_engines()
                rss = python.memory_info().rss / MB
                first_python = rss if first_python is None else first_python
                engine_rss = sum(e.memory_info().rss for e in engines) / MB
                self.engine_rss.append(engine_rss)
                done_in_block = episode % args.every or args.every
                print(f"{episode:>8} {done_in_block / (now - block_start):>10.1f} "
                      f"{block_steps / (now - block_start):>8.0f} {rss:>13.1f} {engine_rss:>13.1f} "
                      f"{len(engines):>7} {len(self.segments()):>8}", flush=True)
                block_start, block_steps = time.perf_counter(), 0
        self.env.close()
        return self.report_leftovers(python.memory_info().rss / MB - first_python)

    def report_leftovers(self, python_growth: float) -> int:
        deadline = time.monotonic() + 5
        while engine.child_engines() and time.monotonic() < deadline:
            time.sleep(0.05)
        engines, segments = engine.child_engines(), self.segments()
        others = []
        for child in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):  # the watchdog leaves with this process
                if child not in engines and watchdog.__file__ not in child.cmdline():
                    others.append(child)
        blocks = max(len(self.engine_rss) - 1, 1)
        print(f"python RSS: {python_growth:+.1f} MB from the first report to the end "
              f"({python_growth * 1024 / blocks:+.0f} KB per {self.args.every} episodes)")
        if not self.args.remake_every and len(self.engine_rss) > 1:
            growth = self.engine_rss[-1] - self.engine_rss[0]
            print(f"engine RSS: {growth:+.1f} MB from the first report to the last "
                  f"({growth * 1024 / blocks:+.0f} KB per {self.args.every} episodes)")
        print(f"left after close: {len(engines)} engines, {len(segments)} of the run's {3 * len(self.instances)} "
              f"/dev/shm segments, {len(others)} other child processes ({len(self.instances)} engines started)")
        return 1 if engines or segments or others else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--every", type=int, default=1000, help="report every N episodes (default 1000)")
    parser.add_argument("--env", default="DoomItems-v0")
    parser.add_argument("--max-episode-steps", type=int, default=None,
                        help="shorter episodes than the env's own limit (more resets per minute)")
    parser.add_argument("--remake-every", type=int, default=0,
                        help="close and make the env anew every N episodes (default 0: never)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for name in ("episodes", "every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return Soak(args).run()


if __name__ == "__main__":
    raise SystemExit(main())
