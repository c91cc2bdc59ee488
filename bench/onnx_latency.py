"""Inference latency at batch 1: the exported ONNX policy in onnxruntime vs the same policy in torch.

    python bench/onnx_latency.py [RUN] [--calls 2000]

RUN is a training run folder; without one, a short run on DoomItems-v0 with the default
configuration is trained first (latency does not depend on how well the weights are trained).
Observations are recorded from the real game. Prints median and p90 microseconds per call for
SB3's `model.predict`, a bare torch forward pass, and onnxruntime, and checks they pick the same actions.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def latency(call, inputs: np.ndarray, calls: int) -> tuple[float, float]:
    """Median and 90th percentile of one call, microseconds."""
    for i in range(50):  # warm-up
        call(inputs[i % len(inputs)][None])
    times = []
    for i in range(calls):
        x = inputs[i % len(inputs)][None]
        start = time.perf_counter()
        call(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e6), float(np.percentile(times, 90) * 1e6)


def tiny_run() -> Path:
    from wadgym.agents import TrainConfig, train

    run_dir = Path(tempfile.mkdtemp(prefix="wadgym-onnx-")) / "run"
    return train(TrainConfig(timesteps=1024, device="cpu", progress=False, run_dir=run_dir)).run_dir


def main() -> int:
    import torch

    from wadgym.agents.policies.export import export_onnx, onnx_module, onnx_session
    from wadgym.agents.policies.policy import SavedPolicy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", nargs="?", help="run folder (default: train a short one)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1, help="threads for torch and onnxruntime (default 1)")
    args = parser.parse_args()

    run = Path(args.run) if args.run else tiny_run()
    torch.set_num_threads(args.threads)
    policy = SavedPolicy(run, device="cpu", deterministic=True)
    inputs = policy.recorded_inputs(seed=0)
    path = export_onnx(run, Path(tempfile.mkdtemp(prefix="wadgym-onnx-")) / "policy.onnx")
    session = onnx_session(path, threads=args.threads)
    module = onnx_module(policy)

    def torch_forward(x):
        with torch.no_grad():
            return module(torch.as_tensor(x))

    results = {
        "SB3 model.predict": latency(policy.act, inputs, args.calls),  # with VecNormalize, as ONNX
        "torch forward": latency(torch_forward, inputs, args.calls),
        "onnxruntime": latency(lambda x: session.run(None, {"obs": x}), inputs, args.calls),
    }
    # policy.act applies the run's VecNormalize statistics, as the ONNX graph does inside
    same = np.array_equal(session.run(None, {"obs": inputs})[1], policy.act(inputs))
    print(f"{policy.env_id}: input {tuple(inputs.shape[1:])} uint8, batch 1, {args.threads} thread(s), "
          f"{args.calls} calls, {len(inputs)} recorded observations")
    for name, (median, p90) in results.items():
        print(f"{name:<18} median {median:8.1f} us   p90 {p90:8.1f} us")
    base = results["SB3 model.predict"][0]
    print(f"onnxruntime speed-up: {base / results['onnxruntime'][0]:.1f}x vs model.predict, "
          f"{results['torch forward'][0] / results['onnxruntime'][0]:.1f}x vs torch forward")
    print(f"same actions on all recorded observations: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
