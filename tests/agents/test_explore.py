"""Exploration bonuses (`wadgym train --explore`; agents.exploration: explore, bonuses): each bonus against a hand
computation on tiny inputs, the bonus in the rewards PPO stores, its state across a checkpoint and a resume, short
real trainings with each kind (ppo and recurrent_ppo), and bad input refused before any engine starts."""

from __future__ import annotations

import json
import math
import shutil
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest
import torch
import yaml

from wadgym.agents import TrainConfig, resolve_config, train
from wadgym.agents.exploration.bonuses import CountBonus, E3BBonus, ExploreCallback, RNDBonus, Step
from wadgym.agents.exploration.explore import KINDS, describe, parse_explore
from wadgym.cli import main

SPACE = gym.spaces.Box(0, 255, (2, 12, 16), np.uint8)
ACTIONS = gym.spaces.Discrete(3)


@pytest.fixture(autouse=True)
def one_torch_thread():
    """The tiny networks here run on one thread: a second one only waits on a busy machine (10x slower)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# --- the setting ---------------------------------------------------------------------------------

def test_settings_parse_to_every_kinds_full_settings():
    setting = parse_explore("e3b+rnd:0.1")
    assert list(setting) == ["e3b", "rnd"]
    assert setting["e3b"]["coef"] == 0.01 and setting["rnd"]["coef"] == 0.1
    assert set(setting["rnd"]) == {"coef", *KINDS["rnd"].settings}
    assert parse_explore({"counts": 0.5, "rnd": {"coef": 0.2, "features": 64}}) == {
        "counts": {"coef": 0.5, "cell": 64}, "rnd": {**parse_explore("rnd:0.2")["rnd"], "features": 64}}
    assert parse_explore(parse_explore("counts:0.02")) == parse_explore("counts:0.02")  # a resolved one stays
    assert parse_explore("none") is None and parse_explore(None) is None
    assert describe(parse_explore("counts:0.02+e3b")) == "counts:0.02+e3b:0.01"


@pytest.mark.parametrize("value, words", [
    ("icm", "unknown kind 'icm'; valid kinds: counts, e3b, rnd"),
    ("counts:-0.1", "negative"),
    ("counts:abc", "not a number"),
    ("e3b+e3b", "given twice"),
    ({"rnd": {"coef": 0.1, "size": 3}}, "rnd has no setting size"),
    ({"counts": {"cell": 2}}, "out of range"),
    (3, "is not valid"),
])
def test_bad_settings_are_refused_with_what_is_valid(value, words):
    with pytest.raises(ValueError, match="explore") as info:
        parse_explore(value)
    assert words in str(info.value)


# --- each bonus against a hand computation -----------------------------------------------------

def positions_step(positions, dones=None):
    n = len(positions)
    return Step(np.zeros((n, 1)), np.zeros(n), np.zeros((n, 1)), [{"position": p} for p in positions],
                np.zeros(n, bool) if dones is None else np.asarray(dones))


def test_counts_pay_one_over_the_root_of_the_visits_this_episode():
    bonus = CountBonus({"cell": 64}, n_envs=2)
    # env 0 stays in cell (0, 0) and then steps into (1, 0); env 1 walks cell (-1, 0) to (-1, 0) to (0, 0)
    got = [bonus.step(positions_step([(0.0, 0.0), (-1.0, 5.0)])),
           bonus.step(positions_step([(63.9, 63.9), (-64.0, 0.0)])),
           bonus.step(positions_step([(10.0, 3.0), (0.0, 0.0)])),
           bonus.step(positions_step([(64.0, 0.0), (-30.0, 1.0)]))]
    np.testing.assert_allclose(np.array(got), [[1, 1], [1 / math.sqrt(2), 1 / math.sqrt(2)],
                                               [1 / math.sqrt(3), 1], [1, 1 / math.sqrt(3)]])
    bonus.start_episodes([0], None)  # env 0's episode ended: its counts start again, env 1's go on
    np.testing.assert_allclose(bonus.step(positions_step([(0.0, 0.0), (-1.0, 0.0)])), [1, 0.5])


def test_counts_say_what_is_missing_without_a_position():
    bonus = CountBonus({"cell": 64}, n_envs=1)
    with pytest.raises(RuntimeError, match="info\\['position'\\]"):
        bonus.step(Step(np.zeros((1, 1)), np.zeros(1), np.zeros((1, 1)), [{}], np.zeros(1, bool)))


def e3b(features=6, ridge=0.1, n_envs=2, seed=0, learning_rate=3e-4):
    settings = {**parse_explore("e3b")["e3b"], "features": features, "ridge": ridge, "learning_rate": learning_rate,
                "update_proportion": 1.0}
    return E3BBonus(settings, n_envs, observation_space=SPACE, action_space=ACTIONS, device="cpu", seed=seed)


def frames(rng, n):
    return rng.integers(0, 256, (n, *SPACE.shape), dtype=np.uint8)


def test_e3b_bonus_and_rank_one_updates_equal_numpys_inverse():
    rng = np.random.default_rng(0)
    bonus = e3b()
    first = frames(rng, 2)
    bonus.start_episodes([0, 1], first)
    seen = [[bonus.embed(first)[i].numpy()] for i in range(2)]
    for _ in range(5):
        nxt = frames(rng, 2)
        u = bonus.embed(nxt).numpy()
        expected = [u[i] @ np.linalg.inv(0.1 * np.eye(6) + sum(np.outer(x, x) for x in seen[i])) @ u[i]
                    for i in range(2)]
        got = bonus.step(Step(None, None, nxt, [{}, {}], np.zeros(2, bool)))
        np.testing.assert_allclose(got, expected, rtol=1e-9)
        for i in range(2):
            seen[i].append(u[i])
            np.testing.assert_allclose(bonus.inverse_cov[i].numpy(),
                                       np.linalg.inv(0.1 * np.eye(6) + sum(np.outer(x, x) for x in seen[i])),
                                       rtol=1e-7, atol=1e-9)
    # an episode's end: C is ridge x I plus the new episode's first observation, the other env's C unchanged
    other = bonus.inverse_cov[1].clone()
    restart = frames(rng, 2)
    bonus.start_episodes([0], restart)
    u0 = bonus.embed(restart[[0]])[0].numpy()
    np.testing.assert_allclose(bonus.inverse_cov[0].numpy(), np.linalg.inv(0.1 * np.eye(6) + np.outer(u0, u0)),
                               rtol=1e-9)
    assert torch.equal(bonus.inverse_cov[1], other)


def test_e3b_the_same_observation_again_pays_less():
    rng = np.random.default_rng(1)
    bonus = e3b(n_envs=1)
    bonus.start_episodes([0], frames(rng, 1))
    seen = frames(rng, 1)
    again = [bonus.step(Step(None, None, seen, [{}], np.zeros(1, bool)))[0] for _ in range(3)]
    assert again[0] > again[1] > again[2] > 0


def test_e3b_trains_its_inverse_dynamics_model():
    """Transitions whose action shows in s' (its brightness): the inverse model learns to name the action."""
    rng = np.random.default_rng(2)
    bonus = e3b(features=16, n_envs=1, learning_rate=1e-3)
    actions = rng.integers(0, 3, 64)
    obs = frames(rng, 64)
    nxt = (actions[:, None, None, None] * 100 + rng.integers(0, 40, (64, *SPACE.shape))).astype(np.uint8)
    first = bonus.train(obs, actions, nxt)["loss"]
    for _ in range(60):
        last = bonus.train(obs, actions, nxt)["loss"]
    assert first > 0.9 and last < 0.5 * first  # from about ln 3 = 1.10


def rnd(seed=0, n_envs=2, **over):
    settings = {**parse_explore("rnd")["rnd"], "features": 32, "learning_rate": 1e-3, "update_proportion": 1.0, **over}
    return RNDBonus(settings, n_envs, observation_space=SPACE, action_space=ACTIONS, device="cpu", seed=seed,
                    frame_stack=2)


def test_rnd_error_falls_on_what_it_trains_on_and_not_on_unseen_inputs():
    rng = np.random.default_rng(3)
    bonus = rnd()
    trained, unseen = frames(rng, 32), frames(rng, 32)
    bonus.obs_rms.update(bonus.frames(np.concatenate([trained, unseen])).astype(np.float64))
    before_trained, before_unseen = bonus.raw(trained).mean(), bonus.raw(unseen).mean()
    for _ in range(60):
        bonus.train(trained, None, trained)
    after_trained, after_unseen = bonus.raw(trained).mean(), bonus.raw(unseen).mean()
    assert after_trained < 0.2 * before_trained
    assert after_unseen > 3 * after_trained
    assert after_unseen / before_unseen > 2 * (after_trained / before_trained)


def test_rnd_reads_the_newest_frame_and_normalises_by_the_intrinsic_returns_std():
    rng = np.random.default_rng(4)
    bonus = rnd()
    obs = frames(rng, 2)
    changed = obs.copy()
    changed[:, 0] = 255 - changed[:, 0]  # the older frame of the stack: not read
    np.testing.assert_array_equal(bonus.raw(obs), bonus.raw(changed))
    returns = []
    for _ in range(4):
        nxt = frames(rng, 2)
        got = bonus.step(Step(None, None, nxt, [{}, {}], np.zeros(2, bool)))
        raw = bonus.raw(nxt)  # after the step's statistics update, as the step computed it
        returns.append(raw if not returns else returns[-1] * 0.99 + raw)
        np.testing.assert_allclose(got, raw / math.sqrt(bonus.return_rms.var + 1e-8), rtol=1e-6)
    np.testing.assert_allclose(bonus.returns, returns[-1], rtol=1e-6)


# --- the callback's state across a checkpoint --------------------------------------------------

def built_callback(setting, seed=0):
    callback = ExploreCallback(parse_explore(setting), frame_stack=2, seed=seed)
    callback.build(SimpleNamespace(n_envs=2, observation_space=SPACE, action_space=ACTIONS, device="cpu"))
    return callback


def test_a_saved_state_gives_the_same_bonus_for_the_same_input(tmp_path):
    rng = np.random.default_rng(5)
    callback = built_callback("e3b+rnd")
    for _ in range(3):
        obs, nxt = frames(rng, 16), frames(rng, 16)
        for bonus in callback.bonuses.values():
            if isinstance(bonus, RNDBonus):
                bonus.obs_rms.update(bonus.frames(nxt).astype(np.float64))
            bonus.train(obs, rng.integers(0, 3, 16), nxt)
    callback.bonuses["rnd"].step(Step(None, None, frames(rng, 2), [{}, {}], np.zeros(2, bool)))
    callback.save(tmp_path / "explore.pt")
    probe = frames(rng, 2)
    fresh = built_callback("e3b+rnd", seed=99)  # other initial weights: what it computes comes from the file
    assert not np.allclose(fresh.bonuses["rnd"].raw(probe), callback.bonuses["rnd"].raw(probe))
    fresh.load(tmp_path / "explore.pt")
    np.testing.assert_array_equal(fresh.bonuses["rnd"].raw(probe), callback.bonuses["rnd"].raw(probe))
    step = Step(None, None, probe, [{}, {}], np.zeros(2, bool))
    np.testing.assert_array_equal(fresh.bonuses["rnd"].step(step), callback.bonuses["rnd"].step(step))
    for one in (fresh, callback):
        one.bonuses["e3b"].start_episodes([0, 1], probe)
    np.testing.assert_array_equal(fresh.bonuses["e3b"].step(step), callback.bonuses["e3b"].step(step))
    with pytest.raises(ValueError, match="holds the state of explore"):
        built_callback("rnd").load(tmp_path / "explore.pt")


# --- real training -----------------------------------------------------------------------------

class Rewards:
    """Records each step's rewards array as the callbacks before and after ExploreCallback see it."""

    def __init__(self):
        from stable_baselines3.common.callbacks import BaseCallback

        self.rows = []

        class Recorder(BaseCallback):
            def _on_step(inner) -> bool:
                self.rows.append((np.array(inner.locals["rewards"], copy=True),
                                  [dict(info) for info in inner.locals["infos"]], np.array(inner.locals["dones"])))
                return True

        self.callback = Recorder()


def test_the_counts_bonus_is_in_the_rewards_ppo_learns_from(tmp_path, tiny_settings, env_id):
    """PPO's rewards are the task's plus coef / sqrt(n) of the cell counts computed here from info['position']."""
    from wadgym.agents.backends import sb3

    conf = tmp_path / "tiny.yml"
    conf.write_text(yaml.safe_dump({env_id: {**tiny_settings, "n_timesteps": 128, "explore": "counts:0.5"}}))
    settings = resolve_config(TrainConfig(env=env_id, conf_file=str(conf), eval_episodes=0))
    run = tmp_path / "run"
    from wadgym.agents.runs import lifecycle

    lifecycle.prepare_run_dir(run, settings)
    before = Rewards()
    original = sb3._explore_callback
    chain = []

    def explore_between(config, saved):
        explore = original(config, saved)
        chain[:] = [explore]
        return explore

    sb3._explore_callback = explore_between
    try:
        # the recorder runs before ExploreCallback (the callbacks given come first, as tracking's)
        result = sb3.train(run, settings, progress=False, callbacks=[before.callback])
    finally:
        sb3._explore_callback = original
    assert result.status == "finished" and chain and chain[0] is not None
    # the rewards after the bonus: what the rollout buffer stored (no truncation in 128 steps of 300)
    stored = chain[0].model.rollout_buffer.rewards  # (n_steps, n_envs) of the last rollout
    visits = [{}, {}]
    expected = []
    for rewards, infos, dones in before.rows:
        row = []
        for i, info in enumerate(infos):
            cell = (math.floor(info["position"][0] / 64), math.floor(info["position"][1] / 64))
            visits[i][cell] = visits[i].get(cell, 0) + 1
            row.append(rewards[i] + 0.5 / math.sqrt(visits[i][cell]))
            if dones[i]:
                visits[i] = {}
        expected.append(row)
    np.testing.assert_allclose(stored, np.array(expected[-64:], np.float32), rtol=1e-6)
    assert len(before.rows) == 64


@pytest.fixture(scope="module")
def explore_run(tmp_path_factory, env_id):
    from .conftest import TINY

    conf = tmp_path_factory.mktemp("explore") / "tiny.yml"
    conf.write_text(yaml.safe_dump({env_id: {**TINY, "n_steps": 32}}))
    run = conf.parent / "run"
    rc = main(["train", "--env", env_id, "--conf-file", str(conf), "--run-dir", str(run), "--explore",
               "counts+e3b:0.02+rnd:0.05", "--save-freq", "64", "--eval-episodes", "1", "--no-video",
               "--no-progress"])
    assert rc == 0
    return run


def scalars(run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    found = {}
    for folder in sorted((run / "tb").iterdir()):
        events = EventAccumulator(str(folder))
        events.Reload()
        for tag in events.Tags()["scalars"]:
            found.setdefault(tag, []).extend(e.value for e in events.Scalars(tag))
    return found


def test_a_run_with_every_kind_logs_them_apart_and_saves_their_state(explore_run):
    config = yaml.safe_load((explore_run / "config.yml").read_text())
    assert describe(config["hyperparams"]["explore"]) == "counts:0.01+e3b:0.02+rnd:0.05"
    tags = scalars(explore_run)
    for name in ("counts_bonus", "e3b_bonus", "e3b_loss", "rnd_bonus", "rnd_loss"):
        assert f"explore/{name}" in tags and all(math.isfinite(v) for v in tags[f"explore/{name}"])
    assert all(0 < v <= 1 for v in tags["explore/counts_bonus"])
    assert (explore_run / "explore.pt").is_file()
    assert sorted(p.name for p in (explore_run / "checkpoints").glob("*explore*")) == ["model_explore_256_steps.pt"]
    # the evaluation plays the policy on the task's own reward
    metrics = json.loads((explore_run / "metrics.json").read_text())
    episode, = metrics["eval"]["trained"]["episodes"]
    assert episode["return"] == episode["score"]  # items: the return is the task's reward alone


def adam_steps(path, kind):
    state = torch.load(path, weights_only=False)["bonuses"][kind]["optimizer"]["state"]
    return int(next(iter(state.values()))["step"])


def test_resume_continues_the_bonuses_state(explore_run, tmp_path):
    run = tmp_path / "stopped"
    shutil.copytree(explore_run, run)
    config = yaml.safe_load((run / "config.yml").read_text())
    config["hyperparams"]["n_timesteps"] = 320  # as a stopped run: more steps than its checkpoint (256) holds
    (run / "config.yml").write_text(yaml.safe_dump(config))
    (run / "model.zip").unlink()
    saved = {kind: adam_steps(run / "checkpoints" / "model_explore_256_steps.pt", kind) for kind in ("e3b", "rnd")}
    assert main(["train", "--resume", str(run), "--eval-episodes", "0", "--no-progress"]) == 0
    resumed = {kind: adam_steps(run / "explore.pt", kind) for kind in ("e3b", "rnd")}
    # one more rollout of 32 steps x 2 envs: one minibatch each; started afresh the count would be 1
    assert resumed == {kind: steps + 1 for kind, steps in saved.items()}


def test_recurrent_ppo_trains_with_an_episodic_bonus(tmp_path, env_id):
    from .conftest import TINY

    conf = tmp_path / "tiny.yml"
    lstm = ("dict(features_extractor_class=SmallCNN, features_extractor_kwargs=dict(features_dim=32), net_arch=[], "
            "lstm_hidden_size=16)")
    conf.write_text(yaml.safe_dump({env_id: {**TINY, "n_timesteps": 128, "n_steps": 32, "policy_kwargs": lstm}}))
    result = train(TrainConfig(env=env_id, conf_file=str(conf), run_dir=str(tmp_path / "run"), algo="recurrent_ppo",
                               explore="counts:0.1+e3b", eval_episodes=0, progress=False))
    assert result.status == "finished"
    tags = scalars(result.run_dir)
    assert "explore/counts_bonus" in tags and "explore/e3b_loss" in tags


# --- refusals before any engine starts --------------------------------------------------------

@pytest.mark.parametrize("options, words", [
    ({"explore": "curiosity"}, "unknown kind 'curiosity'"),
    ({"explore": "rnd:-1"}, "negative"),
    ({"explore": "e3b", "backend": "rllib"}, "sb3 backend only"),
])
def test_bad_explore_options_are_refused_before_anything_starts(options, words, tmp_path, env_id):
    with pytest.raises(ValueError, match="explore") as info:
        train(TrainConfig(env=env_id, run_dir=str(tmp_path / "run"), **options))
    assert words in str(info.value)
    assert not (tmp_path / "run").exists()


def test_bc_and_self_play_refuse_a_bonus(tmp_path, env_id):
    with pytest.raises(ValueError, match="algo bc"):
        resolve_config(TrainConfig(env=env_id, algo="bc", pretrain="some-dataset", explore="counts"))
    with pytest.raises(ValueError, match="multi-agent"):
        train(TrainConfig(env="DoomItemsDuel-v0", explore="e3b", run_dir=str(tmp_path / "run")))
    assert not (tmp_path / "run").exists()


def test_counts_refuse_an_env_without_a_position(tmp_path, tiny_settings):
    """ViZDoom's own Gymnasium ids give no info['position']: counts are refused, e3b is not."""
    conf = tmp_path / "basic.yml"
    conf.write_text(yaml.safe_dump({"VizdoomBasic-v1": {**tiny_settings, "env_kwargs": {}}}))
    with pytest.raises(ValueError, match="does not give; use e3b or rnd"):
        resolve_config(TrainConfig(env="VizdoomBasic-v1", conf_file=str(conf), explore="counts"))
    assert resolve_config(TrainConfig(env="VizdoomBasic-v1", conf_file=str(conf), explore="e3b"))["hyperparams"][
        "explore"]["e3b"]["coef"] == 0.01
