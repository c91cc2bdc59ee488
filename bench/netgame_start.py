"""How long a multiplayer game takes to start: fresh games of a multi-agent id one after another (a new NetGame
each: its worker processes, engines, network handshake and first tic), each timed over its first reset, with
their spread and the starts slower than `--late` seconds.

    python bench/netgame_start.py [--env DoomDeathmatch-v0] [--starts 50] [--bots 0] [--step-timeout 30]
                                  [--late 10]

A start that stalls after the network handshake (waiting out the engines' own limit on waiting for the other
players' tics, `+viz_sync_timeout`, the env's step_timeout) is ended and tried again after
netgame.STALL_PATIENCE seconds; the tries each start took are counted (docs/multi-agent.md, Engines and
failures). The levels' WAD is built by an untimed first start.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from wadgym.envs.multi import make
from wadgym.envs.registration import MULTI_ENVS


def start_seconds(env_id: str, cache_dir: str, seed: int, kwargs: dict) -> tuple[float, int]:
    """Seconds from a new env's reset call to its first observations, and the tries its game's start took (the
    env is closed after)."""
    env = make(env_id, cache_dir=cache_dir, **kwargs)
    try:
        start = time.monotonic()
        env.reset(seed=seed)
        return time.monotonic() - start, env.game.start_attempts
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="DoomDeathmatch-v0", choices=sorted(MULTI_ENVS),
                        help="a multi-agent id (default DoomDeathmatch-v0)")
    parser.add_argument("--starts", type=int, default=50, help="games started and timed (default 50)")
    parser.add_argument("--bots", type=int, default=0, help="the engine's bots beside the agents (default 0)")
    parser.add_argument("--step-timeout", type=float, default=30.0, help="the env's step_timeout (default 30)")
    parser.add_argument("--late", type=float, default=10.0, help="a start slower than this is counted as late "
                                                                  "(default 10 s)")
    args = parser.parse_args(argv)
    if args.starts < 1:
        parser.error(f"--starts {args.starts}: at least 1")
    kwargs = {"num_levels": 2, "max_steps": 40, "step_timeout": args.step_timeout,
              **({"bots": args.bots} if args.bots else {})}
    with tempfile.TemporaryDirectory(prefix="wadgym-netgame-start-") as cache_dir:
        warm_up, _ = start_seconds(args.env, cache_dir, 0, kwargs)
        print(f"{args.env} {kwargs}: warm-up start (builds the WAD) {warm_up:.1f} s", flush=True)
        times, retried = [], 0
        for i in range(args.starts):
            seconds, tries = start_seconds(args.env, cache_dir, i + 1, kwargs)
            times.append(seconds)
            retried += tries > 1
            print(f"start {i + 1}: {seconds:.1f} s" + (f" ({tries} tries)" if tries > 1 else ""), flush=True)
    late = [t for t in times if t > args.late]
    ordered = sorted(times)
    print(f"{len(times)} starts: median {statistics.median(times):.1f} s, 90th percentile "
          f"{ordered[int(0.9 * (len(ordered) - 1))]:.1f} s, max {ordered[-1]:.1f} s; {len(late)} later than "
          f"{args.late:g} s" + (f" ({', '.join(f'{t:.1f}' for t in late)} s)" if late else "")
          + f"; {retried} started again")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
