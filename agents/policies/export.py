"""Export a run's policy as ONNX for fast inference without torch or SB3 (`wadgym export`, wired in
wadgym.cli.export).

The graph takes `obs`: uint8 (batch, C*frame_stack, H, W), the stacked channel-first frames the
network saw in training (oldest frame first); scaling to [0, 1] (and VecNormalize statistics, if the
run used them) happen inside. It returns `logits` float32 (batch, n_actions) and `action` int64
(batch,), the argmax action.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np


class RecurrentPolicyNotExportable(ValueError):
    """The run's policy is recurrent (RecurrentPPO's LSTM): the exported graph (obs -> logits, action) has no
    place for the state it carries from step to step, so it is refused rather than exported wrong."""

    def __init__(self, run):
        super().__init__(
            f"{run}: a recurrent policy (--algo recurrent_ppo, an LSTM) does not export to ONNX: the exported "
            f"graph maps one observation to actions and has no input or output for the LSTM state carried "
            f"between steps. Play it with `wadgym eval {run}` or agents.policies.policy.SavedPolicy instead")


def onnx_module(saved_policy):
    """A torch module: uint8 stacked channel-first frames -> (logits, argmax action)."""
    import torch
    import torch.nn as nn
    from stable_baselines3.common.preprocessing import preprocess_obs

    policy = saved_policy.model.policy
    vec_normalize = saved_policy.vec_normalize

    class PolicyLogits(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = policy
            if vec_normalize is not None:
                rms = vec_normalize.obs_rms
                self.register_buffer("obs_mean", torch.as_tensor(rms.mean, dtype=torch.float32))
                self.register_buffer("obs_std", torch.as_tensor(np.sqrt(rms.var + vec_normalize.epsilon),
                                                                dtype=torch.float32))
                self.clip = float(vec_normalize.clip_obs)

        def forward(self, obs):
            x = obs.float()
            if vec_normalize is not None:
                x = torch.clamp((x - self.obs_mean) / self.obs_std, -self.clip, self.clip)
            # as SB3 does: /255 only when the policy's space is still an image (VecNormalize makes it float)
            x = preprocess_obs(x, self.policy.observation_space, self.policy.normalize_images)
            features = self.policy.pi_features_extractor(x)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))
            return logits, torch.argmax(logits, dim=1)

    return PolicyLogits().eval()


def export_onnx(run: str | Path, path: Path, opset: int = 17) -> Path:
    """Write `run`'s policy to `path` (atomically) and return it."""
    import gymnasium as gym
    import onnx
    import torch

    from wadgym.agents.policies.policy import SavedPolicy
    from wadgym.files import atomic_path

    saved = SavedPolicy(run, device="cpu", deterministic=True)
    if saved.recurrent:
        raise RecurrentPolicyNotExportable(saved.run)
    if not isinstance(saved.model.action_space, gym.spaces.Discrete):
        raise ValueError(f"only Discrete action spaces export, this run has {saved.model.action_space}")
    module = onnx_module(saved)
    example = torch.zeros((1, *saved.model.observation_space.shape), dtype=torch.uint8)
    path = Path(path)
    with atomic_path(path) as temporary:
        # The legacy (TorchScript) exporter: the torch.export-based default needs onnxscript, which
        # wadgym does not depend on; it warns that it is deprecated, not that anything is wrong.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(module, (example,), str(temporary), input_names=["obs"],
                              output_names=["logits", "action"], opset_version=opset, dynamo=False,
                              dynamic_axes={"obs": {0: "batch"}, "logits": {0: "batch"}, "action": {0: "batch"}})
        model = onnx.load(str(temporary))
        for key, value in {"wadgym.env": saved.env_id, "wadgym.frame_stack": str(saved.frame_stack),
                           "wadgym.obs_layout": "uint8 (batch, C*frame_stack, H, W), oldest frame first",
                           "wadgym.source_model": str(saved.model_file)}.items():
            model.metadata_props.add(key=key, value=value)
        onnx.checker.check_model(model)
        onnx.save(model, str(temporary))
    return path


def onnx_session(path: Path, threads: int | None = None):
    """An onnxruntime CPU session for an exported policy."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
