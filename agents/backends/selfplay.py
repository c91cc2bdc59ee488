"""Self-play for wadgym's multi-agent envs (wadgym.envs.multi): one shared PPO policy plays every player.

`wadgym train --env <multi-agent id>` trains with this backend (agents.backends picks it for a multi-agent
env; the run takes the path every run takes, wadgym.agents.resolve_config to lifecycle.train_session):
SelfPlayTrainer is agents.backends.sb3's trainer with each agent of each game one slot of an SB3 vector env
(`AgentSlots`), so the policy learns from every player's stream (a hyperparameter entry's `curriculum`
changes the training games' kwargs at step thresholds, as for single-agent envs: agents.backends.curriculum).
Evaluation seats the trained policy against a random one (alternating seats) and against itself, and counts
each agent's score (the env's info[agent]["score"], named by its score_name). `wadgym rollout <multi-agent
id> --video out.mp4` writes the players' views side by side. Nothing here knows a family: ids and scores
come from the registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wadgym.agents.backends.sb3 import SB3Trainer

if TYPE_CHECKING:
    from wadgym.agents.config import TrainConfig


def is_multi(env_id: str) -> bool:
    """Whether `env_id` is one of wadgym's multi-agent envs (the registry's MULTI_ENVS; no PettingZoo needed)."""
    from wadgym.envs.registration import MULTI_ENVS

    return env_id in MULTI_ENVS


def make_game_factory(env_id: str, env_kwargs: dict[str, Any]):
    from wadgym.envs.multi import make

    def factory():
        return make(env_id, **env_kwargs)

    return factory


# -- training ------------------------------------------------------------------------------------------


def check_stage_games(env_id: str, hp: dict[str, Any]) -> None:
    """agents.backends.curriculum.check_stages for self-play: a game of the entry's kwargs and one of each stage's; a
    bad kwarg is a ValueError now, not mid-run, and so is a stage whose players observe, act or count otherwise."""
    from wadgym.agents.backends.curriculum import check_stages

    def interface(env_kwargs: dict[str, Any]) -> dict[str, Any]:
        game = make_game_factory(env_id, env_kwargs)()
        try:
            agent = game.possible_agents[0]
            return {"observations": game.observation_space(agent), "actions": game.action_space(agent),
                    "players": len(game.possible_agents)}
        finally:
            game.close()

    check_stages(hp, interface)


class SelfPlayTrainer(SB3Trainer):
    """The self-play backend (agents.backends; a lifecycle.Trainer): agents.backends.sb3's trainer on the env's games,
    every player a slot of one VecEnv (AgentSlots), a Monitor file of their own; a curriculum stage's games
    made as the first stage's; with restarts, a game whose engines die is made again. A new run only."""

    @classmethod
    def resolve(cls, config: TrainConfig, hyperparams: dict[str, Any]) -> dict[str, Any]:
        """Nothing of its own in config.yml (backends.BACKENDS records `selfplay: true`); a game of the entry's
        kwargs made and closed, and one of each curriculum stage's (check_stage_games)."""
        check_stage_games(config.env, hyperparams)
        return {}

    @classmethod
    def evaluate(cls, run_dir: Path, episodes: int, seed: int, video: bool = False) -> dict[str, Any]:
        """The head-to-head evaluation (evaluate: trained vs random, trained vs trained on held-out levels)
        into metrics.json; no video (`wadgym rollout --video` films the players side by side)."""
        from wadgym.agents import runfolder

        meta = runfolder.read_json(run_dir / "meta.json")
        evaluation = evaluate(run_dir, episodes, seed)
        runfolder.write_json(run_dir / "metrics.json", {"env": evaluation["env"], "timesteps": meta.get("timesteps"),
                                                        "wall_time_s": meta.get("wall_time_s"), "eval": evaluation})
        return evaluation

    def describe(self) -> str:
        hp, config = self.hp, self.config
        return (f"self-play PPO on {config['env']}: {hp['n_timesteps']} agent steps, {hp['n_envs']} games, device "
                f"{self.device}, seed {config['seed']}; run folder {self.run_dir}")

    def make_model(self, session: dict[str, Any]):
        """A new model on the first stage's games (seeded by the model: they reset when learning starts), from
        the parent's weights with init_from (which must fit exactly). No update settings are applied
        (agents.algos.apply_update_settings): self-play trains with SB3's and torch's defaults, as it always has."""
        from wadgym.agents.algos import algo_class, algo_of, policy_name
        from wadgym.agents.backends.curriculum import env_kwargs_at
        from wadgym.agents.backends.sb3 import init_weights
        from wadgym.agents.config import ppo_kwargs

        hp, config, algo = self.hp, self.config, algo_of(self.config)
        self.venv = self.make_envs(env_kwargs_at(hp, 0), 0)
        model = algo_class(algo)(policy_name(algo, hp["policy"]), self.venv, device=self.device, seed=config["seed"],
                                 tensorboard_log=str(self.run_dir / "tb"), verbose=0, **ppo_kwargs(hp))
        if config.get("init_from"):  # e.g. a single-agent run against bots
            init_weights(model, config["init_from"], self.device, close_env=False)
        return model

    def curriculum_callbacks(self) -> list[Any]:
        from wadgym.agents.backends.curriculum import CurriculumCallback

        return [CurriculumCallback(self.hp, self.make_stage, 0)] if self.hp.get("curriculum") else []

    def make_envs(self, env_kwargs: dict[str, Any], stage: int):
        """The training games of a curriculum stage (the entry's own kwargs without one), each player a slot,
        a Monitor file of their own; with restarts, a game whose engines die is made again."""
        from wadgym.agents import runfolder
        from wadgym.agents.backends.slots import AgentSlots
        from wadgym.agents.restart import GameRestart
        from wadgym.agents.vec import monitored, observe

        games = make_game_factory(self.config["env"], env_kwargs)
        restart = self.config["restart"]["enabled"]
        slots = AgentSlots((lambda: GameRestart(games)) if restart else games, self.hp["n_envs"],
                           self.config["seed"] + 1000 * stage)
        return observe(monitored(slots, runfolder.monitor_file(self.run_dir)), self.hp["frame_stack"])

    def make_stage(self, env_kwargs: dict[str, Any], stage: int):
        """A later stage's games and their first observations (what CurriculumCallback switches to)."""
        venv = self.make_envs(env_kwargs, stage)
        try:
            return venv, venv.reset()
        except BaseException:
            venv.close()
            raise


# -- evaluation ----------------------------------------------------------------------------------------


def game_vec_env(env_id: str, env_kwargs: dict[str, Any], frame_stack: int):
    """One game as training steps it (AgentSlots, a slot per player, under VecMonitor) and observed as
    training observes it (agents.vec.observe): what evaluation and rollout seat the players on."""
    from wadgym.agents.backends.slots import AgentSlots
    from wadgym.agents.vec import monitored, observe

    return observe(monitored(AgentSlots(make_game_factory(env_id, env_kwargs), 1)), frame_stack, training=False)


def seat(run: Path | None, space, deterministic: bool = False):
    """One player of an evaluation: a SavedPolicy or, for None, uniform random actions seeded per episode."""
    from wadgym.agents.episodes import RandomPolicy
    from wadgym.agents.policies.policy import SavedPolicy

    return SavedPolicy(run, deterministic=deterministic) if run is not None else RandomPolicy(space)


def play(venv, seats: list, seed: int | None, frames: list | None = None) -> dict[str, Any]:
    """One episode of the game in `venv` (game_vec_env) from reset(seed=seed), player i played by seats[i]
    (each predicts on every slot's observations and plays its own); the score per player, each player's
    deathmatch figures where the family reports them (info["match"], else None) and the length. With
    `frames`, the game's render() after the reset and after every step but the last (the game is reset
    at its end, as VecEnvs do)."""
    if seed is not None:
        venv.seed(seed)
    observations = venv.reset()
    for k, player in enumerate(seats):
        player.reset(None if seed is None else seed * 31 + k)
    game = venv.unwrapped.games[0]
    if frames is not None:
        frames.append(game.render())
    length = 0
    while True:
        actions = []
        for k, player in enumerate(seats):
            batch, _ = player.predict(observations)
            actions.append(batch[k % len(batch)])  # a random seat samples one action, a saved policy one a slot
        observations, _, dones, infos = venv.step(np.array(actions))
        length += 1
        if dones.all():
            return {"seed": seed, "scores": [float(info["score"]) for info in infos],
                    "matches": [info.get("match") for info in infos], "length": length}
        if frames is not None:
            frames.append(game.render())


def evaluate(run: Path, episodes: int, seed: int, levels: str = "test") -> dict[str, Any]:
    """Trained vs random (the trained policy takes player_0 in even episodes, player_1 in odd ones) and
    trained vs trained, on seeds seed .. seed + episodes - 1 of held-out test levels (`levels="test"`:
    from TEST_START_LEVEL on, as many as the run trained on) or of the training levels ("train")."""
    from wadgym.agents import runfolder
    from wadgym.agents.evaluate import TEST_START_LEVEL, check_held_out
    config = runfolder.load_config(Path(run))
    env_kwargs = dict(config["hyperparams"].get("env_kwargs") or {})
    if levels == "test":  # as many held-out levels as the training range had, from TEST_START_LEVEL on
        from wadgym.envs.registration import MULTI_ENVS

        count = int({**MULTI_ENVS[config["env"]][1], **env_kwargs}.get("num_levels", 0))
        check_held_out(int(env_kwargs.get("start_level", 0)), count)
        env_kwargs.update(start_level=TEST_START_LEVEL, num_levels=count)
    venv = game_vec_env(config["env"], env_kwargs, int(config["hyperparams"].get("frame_stack") or 0))
    try:
        players = len(venv.unwrapped.agents)
        trained = [seat(run, venv.action_space) for _ in range(players)]
        random = [seat(None, venv.action_space) for _ in range(players)]
        head, selfplay, matches = [], [], {"trained": [], "random": []}
        for i in range(episodes):
            mine = i % players  # the trained policy's seat this episode
            seats = [trained[k] if k == mine else random[k] for k in range(players)]
            result = play(venv, seats, seed + i)
            head.append({"seed": seed + i, "trained": result["scores"][mine],
                         "random": float(np.mean([x for k, x in enumerate(result["scores"]) if k != mine]))})
            for k, figures in enumerate(result["matches"]):
                if figures:
                    matches["trained" if k == mine else "random"].append(figures)
            selfplay.append(play(venv, trained, seed + i)["scores"])
        name = venv.unwrapped.games[0].score_name
    finally:
        venv.close()
    t, r = float(np.mean([h["trained"] for h in head])), float(np.mean([h["random"] for h in head]))
    # "trained"/"random" score_mean and score_name as the single-agent evaluation has them (`wadgym runs`); a
    # deathmatch's figures pooled over the seats each played in the matches against each other (match_figures)
    from wadgym.envs.match_figures import pooled

    summaries = {who: {"score_mean": value, **({"match": pooled(matches[who])} if matches[who] else {})}
                 for who, value in (("trained", t), ("random", r))}
    return {"env": config["env"], "episodes": episodes, "seeds": [seed, seed + episodes - 1], "levels": levels,
            "score_name": name, **summaries,
            "vs_random": {"trained_score": t, "random_score": r, "ratio": t / r if r else None, "episodes": head},
            "vs_self": {"score_per_player": np.mean(selfplay, axis=0).tolist(), "episodes": selfplay}}


def format_evaluation(result: dict[str, Any]) -> str:
    h, s, name = result["vs_random"], result["vs_self"], result["score_name"]
    ratio = f"n/a (random scored {h['random_score']:g})" if h["ratio"] is None else f"{h['ratio']:.2f}x"
    from wadgym.envs.match_figures import brief

    figures = [f"{who} {brief(m)}" for who in ("trained", "random") if (m := result.get(who, {}).get("match"))]
    beside = ([f"trained vs random, in the field's units: {'; '.join(figures)}"] if figures else [])
    return "\n".join([
        f"{result['env']}: {result['episodes']} episodes per match on {result.get('levels', 'train')} levels, "
        f"seeds {result['seeds'][0]}..{result['seeds'][1]}",
        f"trained vs random (seats alternate): {name}/episode trained {h['trained_score']:.2f}, "
        f"random {h['random_score']:.2f}: {ratio}",
        f"trained vs trained: {name}/episode per player " + ", ".join(f"{x:.2f}" for x in s["score_per_player"]),
        *beside,
    ])


# -- rollout -------------------------------------------------------------------------------------------


def rollout(env_id: str, env_kwargs: dict[str, Any], episodes: int = 3, seed: int | None = None,
            video: str | Path | None = None, policy: str | Path | None = None) -> int:
    """`wadgym rollout <multi-agent id>`: episodes with random (or `policy`, a run folder) players; `video`
    gets the players' views side by side. With a run, the games are made as its entry made them (its env
    kwargs, e.g. color frames), then `env_kwargs` on top."""
    from wadgym.agents import runfolder

    run = Path(policy) if policy not in (None, "random") else None
    hyperparams = runfolder.load_config(run)["hyperparams"] if run else {}
    frame_stack = int(hyperparams.get("frame_stack") or 0)
    render = {"render_mode": "rgb_array"} if video else {}
    venv = game_vec_env(env_id, {**(hyperparams.get("env_kwargs") or {}), **env_kwargs, **render}, frame_stack)
    frames: list | None = [] if video else None
    try:
        seats = [seat(run, venv.action_space) for _ in venv.unwrapped.agents]
        name = venv.unwrapped.games[0].score_name
        print(f"{'episode':>7} {'seed':>6} {'length':>7}  {name} per player")
        for episode in range(episodes):
            episode_seed = None if seed is None else seed + episode
            r = play(venv, seats, episode_seed, frames)
            print(f"{episode:>7} {str(episode_seed):>6} {r['length']:>7}  {' '.join(f'{x:g}' for x in r['scores'])}")
        fps = float(venv.unwrapped.games[0].metadata["render_fps"])
    finally:
        venv.close()
    if video:
        from wadgym.agents.episodes import write_video

        write_video(Path(video), frames, fps)
        print(f"wrote {video} ({len(frames)} frames, players side by side)")
    return 0
