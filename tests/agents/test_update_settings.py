"""The CPU-only choices for the PPO update (agents.algos.update_settings): decided by device, so a CUDA run keeps
torch's and SB3's defaults, and the same network math either way."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from wadgym.agents.algos import UpdateSettings, apply_update_settings, cpu_computes_bf16, update_settings


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:3", "mps"])
def test_other_devices_keep_the_defaults_but_the_segmented_lstm(device):
    assert update_settings(device) == UpdateSettings(segmented_lstm=True)
    assert not update_settings(device).channels_last and not update_settings(device).foreach_optimizer


def test_the_cpu_gets_channels_last_the_multi_tensor_optimizer_and_bf16_where_it_computes_it():
    assert update_settings("cpu") == UpdateSettings(channels_last=True, foreach_optimizer=True,
                                                    bf16_features=cpu_computes_bf16(), segmented_lstm=True)
    assert not update_settings("cuda").bf16_features


@pytest.mark.parametrize("start_steps", [[], [0], [0, 5], [3, 4, 11]])
def test_the_segmented_lstm_computes_what_sb3_contrib_computes_with_fewer_calls(start_steps):
    from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy

    from wadgym.agents.algos import segmented_sequence

    torch.manual_seed(0)
    n_seq, length = 5, 12
    lstm = torch.nn.LSTM(7, 6, num_layers=2)
    features = torch.randn(n_seq * length, 7, requires_grad=True)
    states = (torch.randn(2, n_seq, 6), torch.randn(2, n_seq, 6))
    starts = torch.zeros(n_seq, length)
    for i, step in enumerate(start_steps):   # sequence i % n_seq starts an episode at `step`
        starts[i % n_seq, step] = 1.0
    calls = []
    lstm.register_forward_hook(lambda module, inputs, output: calls.append(inputs[0].shape[0]))
    results = {}
    for name, process in (("sb3-contrib", RecurrentActorCriticPolicy._process_sequence),
                          ("segmented", segmented_sequence)):
        calls.clear()
        output, (hidden, cell) = process(features, states, starts.flatten(), lstm)
        (grad,) = torch.autograd.grad((output ** 2).sum() + hidden.sum() + cell.sum(), features)
        results[name] = (output, hidden, cell, grad, list(calls))
    *expected, expected_calls = results["sb3-contrib"]
    *got, got_calls = results["segmented"]
    assert got[0].shape == (n_seq * length, 6)
    for a, b in zip(expected, got):
        assert torch.allclose(a, b, atol=1e-5)
    assert sum(got_calls) == length
    assert len(got_calls) == len({0, *start_steps})   # one call per stretch without an episode start
    assert len(expected_calls) == (1 if not start_steps else length)


def test_bf16_features_keep_the_policy_close_and_its_outputs_float32(trained_run):
    from wadgym.agents.policies.policy import SavedPolicy

    model = SavedPolicy(trained_run, deterministic=True).model
    observations = np.stack([model.observation_space.sample() for _ in range(8)])
    obs = model.policy.obs_to_tensor(observations)[0]
    with torch.no_grad():
        before = model.policy.get_distribution(obs).distribution.probs
        values_before = model.policy.predict_values(obs)
    apply_update_settings(model, UpdateSettings(bf16_features=True))
    apply_update_settings(model, UpdateSettings(bf16_features=True))   # wrapped once
    with torch.no_grad():
        features = model.policy.extract_features(obs, model.policy.features_extractor)
        after = model.policy.get_distribution(obs).distribution.probs
        values_after = model.policy.predict_values(obs)
    assert features.dtype == after.dtype == values_after.dtype == torch.float32
    assert not torch.equal(before, after)                       # the CNN did run in bfloat16
    assert torch.allclose(before, after, atol=0.05)             # ... and its features are close
    assert torch.allclose(values_before, values_after, atol=0.1 + 0.05 * values_before.abs().max().item())


def test_applied_settings_change_the_layout_not_the_policy(trained_run):
    from wadgym.agents.policies.policy import SavedPolicy

    policy = SavedPolicy(trained_run, deterministic=True)
    model = policy.model
    observations = np.stack([model.observation_space.sample() for _ in range(4)])
    with torch.no_grad():
        before = model.policy.get_distribution(model.policy.obs_to_tensor(observations)[0]).distribution.logits
    assert apply_update_settings(model, UpdateSettings()) == UpdateSettings()   # the defaults: nothing changes
    convs = [m.weight for m in model.policy.modules() if isinstance(m, torch.nn.Conv2d)]
    assert convs and all(w.is_contiguous() for w in convs)

    cpu = UpdateSettings(channels_last=True, foreach_optimizer=True)   # the layout and optimizer choices
    assert apply_update_settings(model, cpu) == cpu
    assert all(w.is_contiguous(memory_format=torch.channels_last) for w in convs)
    assert all(group["foreach"] for group in model.policy.optimizer.param_groups)
    with torch.no_grad():
        after = model.policy.get_distribution(model.policy.obs_to_tensor(observations)[0]).distribution.logits
    assert torch.allclose(before, after, atol=1e-5)
    apply_update_settings(model, cpu)   # applying twice hooks the extractor once
    assert len(model.policy.features_extractor._forward_pre_hooks) == 1


def test_each_session_records_the_update_settings_it_trained_with(trained_run):
    import dataclasses
    import json

    sessions = json.loads((trained_run / "meta.json").read_text())["sessions"]
    assert sessions and all(s["update_settings"] == dataclasses.asdict(update_settings("cpu")) for s in sessions)
