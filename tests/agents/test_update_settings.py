"""The CPU-only choices for the PPO update (agents.algos.update_settings): decided by device, so a CUDA run keeps
torch's and SB3's defaults, and the same network math either way."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from wadgym.agents.algos import UpdateSettings, apply_update_settings, update_settings


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:3", "mps"])
def test_other_devices_keep_the_defaults(device):
    assert update_settings(device) == UpdateSettings()
    assert not update_settings(device).channels_last and not update_settings(device).foreach_optimizer


def test_the_cpu_gets_channels_last_and_the_multi_tensor_optimizer():
    assert update_settings("cpu") == UpdateSettings(channels_last=True, foreach_optimizer=True)


def test_applied_settings_change_the_layout_not_the_policy(trained_run):
    from wadgym.agents.policy import SavedPolicy

    policy = SavedPolicy(trained_run, deterministic=True)
    model = policy.model
    observations = np.stack([model.observation_space.sample() for _ in range(4)])
    with torch.no_grad():
        before = model.policy.get_distribution(model.policy.obs_to_tensor(observations)[0]).distribution.logits
    assert apply_update_settings(model, UpdateSettings()) == UpdateSettings()   # the defaults: nothing changes
    convs = [m.weight for m in model.policy.modules() if isinstance(m, torch.nn.Conv2d)]
    assert convs and all(w.is_contiguous() for w in convs)

    assert apply_update_settings(model) == update_settings("cpu")               # the model is on the CPU
    assert all(w.is_contiguous(memory_format=torch.channels_last) for w in convs)
    assert all(group["foreach"] for group in model.policy.optimizer.param_groups)
    with torch.no_grad():
        after = model.policy.get_distribution(model.policy.obs_to_tensor(observations)[0]).distribution.logits
    assert torch.allclose(before, after, atol=1e-5)
    apply_update_settings(model)   # applying twice hooks the extractor once
    assert len(model.policy.features_extractor._forward_pre_hooks) == 1
