"""RunCallback's torch threads: one while a rollout is collected on the CPU, the update's own otherwise."""

from __future__ import annotations

import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from wadgym.agents.backends.callbacks import CollectionThreads, RunCallback
from wadgym.agents.features import SmallCNN
from wadgym.agents.vec import close_vec_env, make_vec_env

TINY_POLICY = {"features_extractor_class": SmallCNN, "features_extractor_kwargs": {"features_dim": 16}, "net_arch": []}


class ThreadProbe(BaseCallback):
    """torch's thread count at each env step and at each rollout's end (after RunCallback's hooks)."""

    def __init__(self):
        super().__init__()
        self.in_steps: set[int] = set()
        self.after_rollouts: list[int] = []

    def _on_step(self) -> bool:
        self.in_steps.add(torch.get_num_threads())
        return True

    def _on_rollout_end(self) -> None:
        self.after_rollouts.append(torch.get_num_threads())


@pytest.fixture
def two_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield 2
    torch.set_num_threads(before)


def train_with_probe(tmp_path, n_envs: int, steps: int, collect_threads: int | None = 1) -> ThreadProbe:
    """A tiny PPO on the real engine for `steps` steps (rollouts of 32 steps per env), trained with
    RunCallback and then the probe."""
    venv, _ = make_vec_env("DoomItems-v0", {"resolution": [30, 40]}, n_envs, seed=0, frame_stack=2)
    try:
        model = PPO("CnnPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, device="cpu", seed=0,
                    policy_kwargs=TINY_POLICY)
        probe = ThreadProbe()
        model.learn(steps, callback=CallbackList([RunCallback(tmp_path, 10_000, collect_threads), probe]))
    finally:
        close_vec_env(venv)
    return probe


def test_rollouts_run_on_one_thread_and_the_update_gets_its_threads_back(tmp_path, two_threads):
    probe = train_with_probe(tmp_path, n_envs=2, steps=128)
    assert probe.in_steps == {1}
    assert probe.after_rollouts == [two_threads] * 2  # 2 rollouts of 2 envs x 32 steps
    assert torch.get_num_threads() == two_threads


def test_collect_threads_none_leaves_torch_alone(tmp_path, two_threads):
    probe = train_with_probe(tmp_path, n_envs=1, steps=32, collect_threads=None)
    assert probe.in_steps == {two_threads}


@pytest.mark.parametrize("bad", [0, -1, 1.5, "1", True])
def test_bad_collect_threads_is_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"collect_threads must be a whole number >= 1 or None, got"):
        CollectionThreads(bad)
