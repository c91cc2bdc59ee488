"""Export a run's policy as ONNX for fast inference without torch or SB3.

    wadgym export RUN --onnx FILE

The graph takes `obs`: uint8 (batch, C*frame_stack, H, W), the stacked channel-first frames the
network saw in training (oldest frame first); scaling to [0, 1] (and VecNormalize statistics, if the
run used them) happen inside. It returns `logits` float32 (batch, n_actions) and `action` int64
(batch,), the argmax action.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wadgym.agents.policies import export


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="run folder (as made by `wadgym train`)")
    parser.add_argument("--onnx", required=True, metavar="FILE", help="ONNX file to write")
    parser.add_argument("--opset", type=int, default=17, help="ONNX opset (default 17)")


def run(args: argparse.Namespace) -> int:
    try:
        path = export.export_onnx(args.run, Path(args.onnx), opset=args.opset)
    except ValueError as exc:
        print(f"wadgym export: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}: input obs uint8 (batch, C*stack, H, W) -> logits, action (argmax)")
    return 0


