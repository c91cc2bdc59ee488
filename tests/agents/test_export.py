"""ONNX export: onnxruntime gives the same actions as torch on observations recorded from the real game."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from wadgym.agents.cli import main


@pytest.fixture(scope="module")
def recorded_inputs(trained_run):
    """Network inputs (stacked, channel-first uint8) seen while the trained policy plays one episode."""
    from wadgym.agents.evaluate import run_episodes
    from wadgym.agents.policy import SavedPolicy

    policy = SavedPolicy(trained_run, deterministic=True)
    inputs = []
    original = policy.network_input

    def record(observation):
        net_input = original(observation)
        inputs.append(net_input[0].copy())
        return net_input

    policy.network_input = record
    run_episodes(policy.env_id, policy.env_kwargs, [11], policy)
    return policy, np.stack(inputs)


def test_onnxruntime_and_torch_choose_the_same_actions(trained_run, recorded_inputs, tmp_path):
    import torch

    from wadgym.agents.export import onnx_session

    path = tmp_path / "policy.onnx"
    assert main(["export", str(trained_run), "--onnx", str(path)]) == 0
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    assert {p.key for p in model.metadata_props} >= {"wadgym.env", "wadgym.frame_stack"}

    policy, inputs = recorded_inputs
    assert inputs.dtype == np.uint8 and inputs.shape[1:] == policy.model.observation_space.shape
    assert len(inputs) > 50 and inputs.std() > 0
    logits, actions = onnx_session(path).run(None, {"obs": inputs})
    torch_actions, _ = policy.model.predict(inputs, deterministic=True)
    np.testing.assert_array_equal(actions, torch_actions)
    with torch.no_grad():
        distribution = policy.model.policy.get_distribution(policy.model.policy.obs_to_tensor(inputs)[0])
        torch_log_probs = distribution.distribution.logits.numpy()
    log_probs = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) - logits.max(1, keepdims=True)
    np.testing.assert_allclose(log_probs, torch_log_probs, atol=1e-4)


def test_single_observation_batch(trained_run, recorded_inputs, tmp_path):
    from wadgym.agents.export import export_onnx, onnx_session

    path = export_onnx(trained_run, tmp_path / "one.onnx")
    policy, inputs = recorded_inputs
    _, action = onnx_session(path).run(None, {"obs": inputs[:1]})
    assert action.shape == (1,) and 0 <= int(action[0]) < policy.model.action_space.n


def test_vecnormalize_statistics_are_inside_the_graph(tmp_path, tiny_hyperparams, env_id):
    """A run with normalize: true (observation statistics): ONNX still takes raw uint8 frames."""
    from wadgym.agents.export import export_onnx, onnx_session
    from wadgym.agents.policy import SavedPolicy

    run = tmp_path / "normalized"
    assert main(["train", "--env", env_id, "--hyperparams", str(tiny_hyperparams), "--run-dir", str(run),
                 "--timesteps", "128", "--hp", "normalize=true", "--eval-episodes", "0", "--no-progress"]) == 0
    policy = SavedPolicy(run, deterministic=True)
    assert policy.vec_normalize is not None and policy.vec_normalize.obs_rms.count > 1
    frames = np.random.default_rng(0).integers(0, 256, (64, *policy.vec_normalize.obs_rms.mean.shape), np.uint8)
    _, actions = onnx_session(export_onnx(run, tmp_path / "n.onnx")).run(None, {"obs": frames})
    torch_actions, _ = policy.model.predict(policy.vec_normalize.normalize_obs(frames), deterministic=True)
    np.testing.assert_array_equal(actions, torch_actions)
