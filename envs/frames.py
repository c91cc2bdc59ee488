"""From the engine's frame to the observation: the engine's screen resolutions (`render_resolution=`), the
observation sizes a resolution reaches by reducing f x f blocks (`resolution=`), the downsamplers that reduce
them (`downsample=`) and the engine's own gray conversion."""

from __future__ import annotations

import numpy as np
import vizdoom as vzd

from .checks import check_number

ENGINE_RESOLUTIONS = tuple(n[4:].lower() for n in dir(vzd.ScreenResolution) if n.startswith("RES_"))


def valid_observation_sizes(engine_width: int, engine_height: int) -> list[tuple[int, int]]:
    """(height, width) observations reachable by reducing f x f blocks of the engine's frame."""
    return [(engine_height // f, engine_width // f) for f in range(1, engine_height + 1)
            if engine_height % f == 0 and engine_width % f == 0]


def parse_engine_resolution(text: str) -> tuple[int, int, vzd.ScreenResolution]:
    """Width, height and ScreenResolution of a `render_resolution` such as "160x120"; else a ValueError."""
    if not isinstance(text, str) or text.lower() not in ENGINE_RESOLUTIONS:
        raise ValueError(f"render_resolution={text!r} is not a ViZDoom resolution; "
                         f"valid: {', '.join(ENGINE_RESOLUTIONS)}")
    width, height = (int(v) for v in text.lower().split("x"))
    return width, height, getattr(vzd.ScreenResolution, f"RES_{width}X{height}")


def parse_observation_size(resolution, render_resolution, engine_width: int, engine_height: int) -> tuple[int, int]:
    """`resolution` as (height, width), when f x f blocks of the engine's frame reach it; else a ValueError
    listing the sizes that are."""
    sizes = valid_observation_sizes(engine_width, engine_height)
    try:
        height, width = resolution
        height, width = check_number("height", height, whole=True), check_number("width", width, whole=True)
    except (TypeError, ValueError):
        height = width = None
    if (height, width) not in sizes:
        raise ValueError(f"resolution={resolution!r} is not reachable from render_resolution "
                         f"{render_resolution!r}; valid (height, width): {', '.join(map(str, sizes))}")
    return height, width


class BlockMean:
    """Average of f x f pixel blocks (rounded down) of uint8 frames (H, W) or (H, W, C), as (H/f, W/f, C)
    with C = 1 for (H, W) frames; a new array per call, or written into `out`.

    Sums strided slices into reused buffers: several times faster than a reshape-and-sum.
    """

    def __init__(self, shape: tuple[int, ...], f: int):
        self.f = f
        self._gray = len(shape) == 2
        channels = shape[2] if len(shape) > 2 else 1
        dtype = np.uint16 if f <= 16 else np.uint32  # 255 * f * f must fit
        self._rows = np.empty((shape[0] // f, shape[1], channels), dtype)
        self._blocks = np.empty((shape[0] // f, shape[1] // f, channels), dtype)
        self._shift = f.bit_length() - 1 if f & (f - 1) == 0 else None  # f a power of two: divide by shifting

    def __call__(self, frame: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        f, rows, blocks = self.f, self._rows, self._blocks
        if self._gray:
            frame = frame[:, :, None]
        if f == 1:
            return frame if out is None else copied(frame, out)
        np.add(frame[0::f], frame[1::f], out=rows, dtype=rows.dtype)
        for k in range(2, f):
            np.add(rows, frame[k::f], out=rows)
        np.add(rows[:, 0::f], rows[:, 1::f], out=blocks)
        for k in range(2, f):
            np.add(blocks, rows[:, k::f], out=blocks)
        if self._shift is not None:
            np.right_shift(blocks, 2 * self._shift, out=blocks)
        else:
            np.floor_divide(blocks, f * f, out=blocks)
        return blocks.astype(np.uint8) if out is None else copied(blocks, out)


class BlockSample:
    """The pixel nearest the centre of each f x f block of uint8 frames (H, W) or (H, W, C), as (H/f, W/f, C)
    with C = 1 for (H, W) frames; a new array per call (f = 1: a view of the frame), or written into `out`.
    About 2 us for 120x160 -> 60x80, five times cheaper than BlockMean: the env keeps the engine's pace."""

    def __init__(self, shape: tuple[int, ...], f: int):
        self.f = f
        every = slice(f // 2, None, f)
        self._index = (every, every) + ((None,) if len(shape) == 2 else ())  # one indexing op adds the channel axis

    def __call__(self, frame: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if out is not None:
            return copied(frame[self._index], out)
        if self.f == 1:
            return frame[self._index]
        return frame[self._index].copy()


def copied(source: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`source` written into `out` (converted to its dtype); `out`."""
    np.copyto(out, source, casting="unsafe")
    return out


# How a rendered frame becomes a smaller observation: `downsample=` names one.
DOWNSAMPLERS = {"stride": BlockSample, "mean": BlockMean}


def engine_gray(rgb: np.ndarray) -> np.ndarray:
    """The engine's own GRAY8 conversion of an RGB24 frame, bit for bit (viz_buffers.cpp: truncated)."""
    return (0.21 * rgb[..., 0] + 0.72 * rgb[..., 1] + 0.07 * rgb[..., 2]).astype(np.uint8)
