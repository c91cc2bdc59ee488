"""`wadgym rollout ENV_ID`: run episodes headless with a random (or saved) policy, as a CI job would.

Prints per episode the return, the score (the env's own measure: items, kills, ...), length and steps/s;
`--video` writes them all to one MP4. With `--policy RUN` the env is made as the run's training made it (its env kwargs,
then any -k on top); the random policy plays episode i with seed SEED+i exactly as `wadgym eval` does. With
`--wad FILE [--map MAP01]` (or `--wad vizdoom:NAME`) the id plays that hand-made map instead of its levels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wadgym.agents.policies import rollout


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", help="a registered env id, e.g. DoomItems-v1")
    parser.add_argument("--episodes", type=int, default=3, help="number of episodes (default 3)")
    parser.add_argument("--seed", type=int, default=None, help="episode i is reset with seed SEED + i")
    parser.add_argument("--video", metavar="FILE.mp4", help="write every episode's frames to this MP4")
    parser.add_argument("--policy", default="random", help="'random' (default) or a run folder made by `wadgym train`")
    parser.add_argument("--wad", metavar="FILE", help="play a hand-made map instead of generated levels: a WAD "
                        "file, or vizdoom:NAME for a scenario shipped with ViZDoom")
    parser.add_argument("--map", default="MAP01", help="the map of --wad to play (default MAP01)")
    parser.add_argument("--env-kwarg", "-k", action="append", default=[], metavar="KEY=VALUE",
                        help="an env argument, repeatable, e.g. -k n_items=5 -k color=true -k 'resolution=(30, 40)'")


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from wadgym.agents.backends.selfplay import is_multi

    if args.map != "MAP01" and not args.wad:
        print("wadgym rollout: error: --map chooses a map of --wad; pass --wad too", file=sys.stderr)
        return 2
    if is_multi(args.env_id):  # several players: each one's view side by side in the video
        if args.wad:
            print(f"wadgym rollout: error: --wad plays single-agent ids, not {args.env_id}", file=sys.stderr)
            return 2
        from wadgym.agents.backends.selfplay import rollout as selfplay_rollout
        from wadgym.envs.kwargs import parse_assignments

        try:
            return selfplay_rollout(args.env_id, parse_assignments(args.env_kwarg, "-k"), episodes=args.episodes,
                                    seed=args.seed, video=args.video, policy=args.policy)
        except ValueError as error:
            print(f"wadgym rollout: error: {error}", file=sys.stderr)
            return 2

    from wadgym.agents.episodes import RandomPolicy
    from wadgym.agents.vec import gym_make
    from wadgym.envs.kwargs import parse_assignments

    try:
        if args.episodes < 1:
            raise ValueError(f"--episodes {args.episodes}: must be at least 1")
        if args.video:
            rollout.check_output_file(args.video, "--video")
        policy = rollout.load_policy(args.policy)
        env_kwargs = {**rollout.policy_kwargs(args.env_id, policy, args.wad, args.map),
                      **parse_assignments(args.env_kwarg, "-k")}
        render_mode = "rgb_array" if args.video else None
        if policy:  # one env observed as the policy's training observed it (a VecEnv)
            env = policy.make_vec_env(env_kwargs, render_mode)
        else:  # the random policy plays the env as it is
            env = gym_make(args.env_id, env_kwargs, render_mode)
            policy = RandomPolicy(env.action_space)
    except (ValueError, gym.error.Error) as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # "module:Env-v0" ids import their module
        print(f"wadgym rollout: error: cannot import the env's module: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # e.g. an unwritable cache folder
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    frames: list | None = [] if args.video else None
    try:
        rollout.run_episodes(env, policy, args.episodes, args.seed, frames)
    except ValueError as error:
        print(f"wadgym rollout: error: {error}", file=sys.stderr)
        return 2
    finally:
        env.close()
    if args.video:
        from wadgym.agents.episodes import video_fps, write_video

        write_video(Path(args.video), frames, video_fps(env.unwrapped.envs[0] if hasattr(env, "num_envs") else env))
        print(f"wrote {args.video} ({len(frames)} frames)")
    return 0


