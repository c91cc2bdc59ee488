"""The MLflow Model of a wadgym policy: the code of its `pyfunc` flavour (MLflow's models from code).

agents.runs.tracking.models logs this file with each tracked run's final model (MLflow copies it into the model), so
MLflow loads the policy from readable code instead of a pickle. It imports neither wadgym nor torch:

- over the ONNX export (agents.policies.export; artifact "onnx"), loading needs only mlflow, numpy and onnxruntime,
  and unpickles nothing: the graph is data, this file the only code;
- else (a policy that does not export to ONNX: recurrent, a non-Discrete action space) over SB3's own
  model.zip (artifact "sb3_model"), which SB3 unpickles as it loads, with the observation statistics of
  VecNormalize as plain numbers (artifact "obs_normalization", .npz without pickled objects).

predict(observations) takes uint8 (batch, C*frame_stack, H, W), the stacked channel-first frames the
network saw in training, and returns the int64 action of each row (the argmax action). A recurrent
policy reads the rows as one episode's consecutive observations from its start.
"""

import mlflow
import numpy as np
from mlflow.pyfunc import PythonModel


class PolicyModel(PythonModel):
    """Observations -> actions, over whichever artifact the model was logged with."""

    def load_context(self, context):
        artifacts = context.artifacts
        config = context.model_config or {}
        self.session = self.sb3 = None
        if "onnx" in artifacts:
            import onnxruntime as ort

            self.session = ort.InferenceSession(artifacts["onnx"], providers=["CPUExecutionProvider"])
            return
        import importlib

        module, _, name = config["sb3_class"].rpartition(".")
        algo = getattr(importlib.import_module(module), name)
        # Schedules only matter to keep training: loading for inference must not need them.
        custom = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}
        self.sb3 = algo.load(artifacts["sb3_model"], device="cpu", custom_objects=custom)
        self.recurrent = bool(config.get("recurrent"))
        self.normalization = None
        if "obs_normalization" in artifacts:
            with np.load(artifacts["obs_normalization"], allow_pickle=False) as stats:
                self.normalization = {key: stats[key] for key in stats.files}

    # The hint is evaluated (no `from __future__ import annotations` here): MLflow reads it, and an ndarray
    # hint tells it to take the schema from the logged signature.
    def predict(self, context, model_input: np.ndarray, params=None) -> np.ndarray:
        observations = np.asarray(model_input, dtype=np.uint8)
        if self.session is not None:
            _, actions = self.session.run(None, {"obs": observations})
            return np.asarray(actions, dtype=np.int64)
        return self._predict_sb3(observations)

    def _predict_sb3(self, observations: np.ndarray) -> np.ndarray:
        inputs = observations
        if self.normalization is not None:
            stats = self.normalization
            inputs = np.clip((observations - stats["mean"]) / np.sqrt(stats["var"] + stats["epsilon"]),
                             -stats["clip"], stats["clip"]).astype(np.float32)  # as VecNormalize.normalize_obs
        if not self.recurrent:
            actions, _ = self.sb3.predict(inputs, deterministic=True)
            return np.asarray(actions, dtype=np.int64).reshape(-1)
        state, actions = None, []
        for step, row in enumerate(inputs):
            action, state = self.sb3.predict(row[None], state=state, episode_start=np.array([step == 0]),
                                             deterministic=True)
            actions.append(int(np.asarray(action).reshape(-1)[0]))
        return np.asarray(actions, dtype=np.int64)


mlflow.models.set_model(PolicyModel())
