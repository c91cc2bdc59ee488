"""ONNX export: onnxruntime gives the same logits and actions as torch on observations recorded from the real game."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from wadgym.cli import main


@pytest.fixture(scope="module")
def recorded_inputs(trained_run):
    """Network inputs (stacked, channel-first uint8) seen while the trained policy plays one episode."""
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(trained_run, deterministic=True)
    return policy, policy.recorded_inputs(seed=11)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def torch_log_probs(policy, network_inputs: np.ndarray) -> np.ndarray:
    """The action log-probabilities of the run's torch policy, VecNormalize applied as in training."""
    import torch

    if policy.vec_normalize is not None:
        network_inputs = policy.vec_normalize.normalize_obs(network_inputs)
    with torch.no_grad():
        observations = policy.model.policy.obs_to_tensor(network_inputs)[0]
        return policy.model.policy.get_distribution(observations).distribution.logits.numpy()


def test_onnxruntime_and_torch_choose_the_same_actions(trained_run, recorded_inputs, tmp_path):
    from wadgym.agents.policies.export import onnx_session

    path = tmp_path / "policy.onnx"
    assert main(["export", str(trained_run), "--onnx", str(path)]) == 0
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    assert {p.key for p in model.metadata_props} >= {"wadgym.env", "wadgym.frame_stack"}
    assert [p.name for p in tmp_path.iterdir()] == ["policy.onnx"]  # no temporary file left beside it

    policy, inputs = recorded_inputs
    assert inputs.dtype == np.uint8 and inputs.shape[1:] == policy.model.observation_space.shape
    assert len(inputs) > 50 and inputs.std() > 0
    logits, actions = onnx_session(path).run(None, {"obs": inputs})
    np.testing.assert_array_equal(actions, policy.act(inputs))
    np.testing.assert_allclose(log_softmax(logits), torch_log_probs(policy, inputs), atol=1e-4)


def test_single_observation_batch(trained_run, recorded_inputs, tmp_path):
    from wadgym.agents.policies.export import export_onnx, onnx_session

    path = export_onnx(trained_run, tmp_path / "one.onnx")
    policy, inputs = recorded_inputs
    _, action = onnx_session(path).run(None, {"obs": inputs[:1]})
    assert action.shape == (1,) and 0 <= int(action[0]) < policy.model.action_space.n


def test_vecnormalize_statistics_are_inside_the_graph(tmp_path, tiny_hyperparams, env_id):
    """A run with normalize: true (observation statistics): ONNX still takes raw uint8 frames, and its
    logits are torch's on the normalised frames."""
    from wadgym.agents.policies.export import export_onnx, onnx_session
    from wadgym.agents.policies.policy import SavedPolicy

    run = tmp_path / "normalized"
    assert main(["train", "--env", env_id, "--conf-file", str(tiny_hyperparams), "--run-dir", str(run),
                 "--timesteps", "128", "--hp", "normalize=true", "--eval-episodes", "0", "--no-progress"]) == 0
    policy = SavedPolicy(run, deterministic=True)
    # one reset and 64 steps of 2 envs: each observation counted once (no second reset before learning)
    assert policy.vec_normalize.obs_rms.count == pytest.approx(1e-4 + 2 + 128)
    frames = np.random.default_rng(0).integers(0, 256, (64, *policy.vec_normalize.obs_rms.mean.shape), np.uint8)
    logits, actions = onnx_session(export_onnx(run, tmp_path / "n.onnx")).run(None, {"obs": frames})
    np.testing.assert_allclose(log_softmax(logits), torch_log_probs(policy, frames), atol=1e-4)
    np.testing.assert_array_equal(actions, policy.act(frames))
    # without the statistics the network sees other inputs: the check above is not vacuous
    assert not np.allclose(log_softmax(logits), torch_log_probs(_without_statistics(policy), frames), atol=1e-4)


def _without_statistics(policy):
    policy.vec_normalize = None
    return policy
