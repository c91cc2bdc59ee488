"""Play an env id yourself in the game's window, and record your episodes as a Minari dataset.

    wadgym play DoomItems-v1 --level 0
    wadgym play DoomItems-v1 --episodes 5 --record wadgym/items-human-v0
    wadgym play DoomItems-v1 --action-set extended --record wadgym/items-human-extended-v0

The window takes the keyboard: arrows or WASD move forward/back and turn, Q/E (or , and .) strafe, Ctrl or
Space attack; only the buttons of the id's action set act (the list is printed at the start). Each step is
the env's own (its level, rewards, score, time limit), the rewards and score are printed here as you play, and
the recorded action of each step is the action of the id's action set that your keys map to (the one with
exactly those buttons, else the nearest; no key at all: the set's empty action, e.g. with
`--action-set extended`; a set without one records its first action and flags the step idle, and behaviour
cloning leaves those steps out). Ctrl-C stops: finished episodes are kept. Needs a display
(headless: `apt-get install xvfb`, then `xvfb-run -a wadgym play ...`), and for --record
`pip install 'wadgym[demos]'`.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered env id, e.g. DoomItems-v1")
    parser.add_argument("--level", type=int, default=None, metavar="N",
                        help="play level seed N (default: the id's training levels, drawn from the seed)")
    parser.add_argument("--episodes", type=int, default=1, help="number of episodes (default 1)")
    parser.add_argument("--max-steps", type=int, default=None, metavar="N",
                        help="end each episode after N steps (default: the id's own time limit)")
    parser.add_argument("--action-set", default=None, metavar="NAME",
                        help="the env's action set (default: the id's; 'extended' has a no-button action)")
    parser.add_argument("--record", default=None, metavar="NAME",
                        help="record the episodes as the Minari dataset NAME (namespace/name-vN)")
    parser.add_argument("--overwrite", action="store_true", help="replace a dataset of that name")
    parser.add_argument("--seed", type=int, default=0, help="episode i is reset with seed SEED+i (default 0)")
    parser.add_argument("--quiet", action="store_true", help="print only each episode's end, not every reward")


def run(args: argparse.Namespace) -> int:
    from wadgym.agents.datasets.play import play
    from wadgym.envs.registration import score_name

    unit = "score"

    def started(description):
        nonlocal unit
        unit = score_name(description["env_id"])
        print(f"playing {description['env_id']} ({_levels(args.level)}); in the game's window:")
        for index, buttons, keys in description["actions"]:
            what = " + ".join(buttons) or "no button"
            held = " + ".join("/".join(k) for k in keys) or "no key"
            print(f"  action {index}: {what:<26} {held}")
        if description["pause_flagged"]:
            print(f"  no key: a pause, recorded as action {description['pause']} flagged idle, which cloning "
                  f"leaves out (--action-set extended has a no-button action)")

    def stepped(step):
        if not args.quiet and step["reward"]:
            print(f"  step {step['step']:4d}: reward {step['reward']:+.2f}   {unit} {step['score']:g}", flush=True)

    def ended(episode):
        print(f"episode {episode['episode'] + 1}: level {episode['level_seed']}, {unit} {episode['score']:g}, "
              f"return {episode['return']:.2f}, {episode['length']} steps"
              f"{f', {idle} idle (no key)' if (idle := episode['idle']) else ''}", flush=True)

    try:
        result = play(args.env_id, level=args.level, episodes=args.episodes, max_steps=args.max_steps,
                      action_set=args.action_set, seed=args.seed, dataset_id=args.record, overwrite=args.overwrite,
                      on_start=started, on_step=stepped, on_episode=ended)
    except (ValueError, OSError) as error:
        print(f"wadgym play: error: {error}", file=sys.stderr)
        return 2
    if result.stopped:
        print(f"stopped ({result.stopped}): {len(result.episodes)} episodes finished")
    if result.path is not None:
        print(f"wrote {result.dataset_id} ({len(result.episodes)} episodes, {result.steps} steps) in {result.path}")
    elif args.record:
        print(f"no episode finished: {args.record} not written")
    return 130 if result.stopped and result.stopped != "the game's window was closed" else 0


def _levels(level) -> str:
    return "its training levels" if level is None else f"level {level}"
