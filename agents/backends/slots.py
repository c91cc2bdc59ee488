"""AgentSlots: wadgym's multi-agent games (PettingZoo parallel envs) as one SB3 VecEnv, a slot per agent."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from stable_baselines3.common.vec_env import VecEnv


class AgentSlots(VecEnv):
    """`n_games` multi-agent games as one SB3 VecEnv with a slot per agent (game-major: game 0's agents
    first). Plain games step side by side from one thread (wadgym.envs.multi.step_envs: no thread per game
    to queue for the GIL on a busy machine); games behind a wrapper (engine restarts) in a thread each; a
    finished game is reset at once (resets in threads) and its slots report the terminal observation, as
    SB3's VecEnvs do (a VecMonitor over it records the episodes)."""

    def __init__(self, make_game, n_games: int, seed: int = 0):
        self.games = []
        try:
            for _ in range(n_games):
                self.games.append(make_game())
        except BaseException:
            self.close()
            raise
        first = self.games[0]
        self.agents = list(first.possible_agents)
        space = first.observation_space(self.agents[0])
        super().__init__(n_games * len(self.agents), space, first.action_space(self.agents[0]))
        self._pool = ThreadPoolExecutor(max_workers=n_games, thread_name_prefix="wadgym-game")
        self._seeds = [seed + k for k in range(n_games)]
        self._actions = None

    def reset(self):
        results = list(self._pool.map(lambda kg: kg[1].reset(seed=self._seeds[kg[0]]), enumerate(self.games)))
        self._seeds = [None] * len(self.games)  # seeded once; later episodes draw from each game's np_random
        return np.stack([obs[a] for obs, _ in results for a in self.agents])

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        from wadgym.envs.multi import MultiplayerEnv, step_envs

        n = len(self.agents)
        actions = [{a: int(x) for a, x in zip(self.agents, row)} for row in self._actions.reshape(len(self.games), n)]
        if all(type(game) is MultiplayerEnv for game in self.games):
            stepped = step_envs(self.games, actions)
        else:  # games behind a wrapper (agents.restart.GameRestart: its own step remakes a dead game) step alone,
            # each in a thread, so that a failing game is that wrapper's to handle and the others go on
            stepped = list(self._pool.map(lambda k: self.games[k].step(actions[k]), range(len(self.games))))
        results = [self._after_step(k, result) for k, result in enumerate(stepped)]
        done = [k for k, (_, _, d, _) in enumerate(results) if d[0]]
        if done:  # the finished games start their next episode side by side
            for k, (obs, _) in zip(done, self._pool.map(lambda k: self.games[k].reset(), done)):
                results[k][0][:] = [obs[a] for a in self.agents]
        observations = np.stack([o for obs, _, _, _ in results for o in obs])
        rewards = np.concatenate([r for _, r, _, _ in results]).astype(np.float32)
        dones = np.concatenate([d for _, _, d, _ in results])
        infos = [i for _, _, _, info in results for i in info]
        return observations, rewards, dones, infos

    def _after_step(self, k: int, result: tuple):
        obs, rewards, terminations, truncations, infos = result
        n = len(self.agents)
        reward = np.array([rewards[a] for a in self.agents])
        done = bool(any(terminations.values()) or any(truncations.values()))
        out_infos = [dict(infos[a]) for a in self.agents]
        out_obs = [obs[a] for a in self.agents]
        if done:
            for j, a in enumerate(self.agents):
                out_infos[j]["terminal_observation"] = obs[a]
                out_infos[j]["TimeLimit.truncated"] = bool(truncations[a] and not terminations[a])
        return out_obs, reward, np.full(n, done), out_infos

    def close(self):
        for game in self.games:
            game.close()
        if hasattr(self, "_pool"):
            self._pool.shutdown(wait=False)

    # VecEnv's per-env plumbing: nothing here is used by PPO.
    def get_attr(self, attr_name, indices=None):
        return [getattr(self.games[i // len(self.agents)], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        raise NotImplementedError

    def env_method(self, method_name, *args, indices=None, **kwargs):
        raise NotImplementedError

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]
