"""How a recording stores its image fields: the colour ones (rgb, automap) as PNG (lossless, the default) or as
JPEG (`image_format="jpeg"` or `"jpeg:QUALITY"`), the buffers whose values are ids and distances (depth,
labels) always as PNG, which keeps them exact.

JPEG costs about a fifth of the CPU of our level-1 PNG on Doom's frames (160x120 RGB: ~0.2 ms a frame against
~1 ms here) for a slightly lossy frame (quality 95: pixels off by 2-3 of 255 on average) and about the same
bytes. A chunk's frames are stacked top to bottom and encoded as one image with no chroma subsampling, so
every 8x8 block lies in one frame (the frame's height must be a multiple of 8: 120, 240, 480 are). The encoder
(Pillow's libjpeg-turbo) is deterministic: the same frames give the same bytes.
"""

from __future__ import annotations

import io

import numpy as np

from wadgym.agents.datasets.worldmodel.png import decode_pillow, decode_png, encode_png

FORMATS = ("png", "jpeg")
COLOUR_FIELDS = ("rgb", "automap")  # the fields image_format applies to; depth and labels stay PNG
DEFAULT_QUALITY = 95
_EXTENSIONS = {"png": "png", "jpeg": "jpg"}


def parse_format(text) -> tuple[str, int | None]:
    """"png", "jpeg" or "jpeg:QUALITY" -> (format, quality: None for PNG); a ValueError naming what is valid."""
    valid = "png (lossless, default), jpeg, or jpeg:QUALITY with QUALITY a whole number from 1 to 95"
    if not isinstance(text, str):
        raise ValueError(f"image_format={text!r}: give {valid}")
    name, _, quality = text.partition(":")
    if name not in FORMATS or (name == "png" and quality):
        raise ValueError(f"image_format={text!r}: give {valid}")
    if name == "png":
        return name, None
    if not quality:
        return name, DEFAULT_QUALITY
    if not quality.isdigit() or not 1 <= int(quality) <= 95:
        raise ValueError(f"image_format={text!r}: the quality must be a whole number from 1 to 95")
    return name, int(quality)


def normal_format(text: str) -> str:
    """The format as index.json records it: "png" or "jpeg:QUALITY"."""
    name, quality = parse_format(text)
    return name if quality is None else f"{name}:{quality}"


def members(fields, image_format: str = "png") -> dict[str, str]:
    """Each image field -> its member's extension in a shard, e.g. {"rgb": "rgb.jpg", "depth": "depth.png"}."""
    name, _ = parse_format(image_format)
    return {field: f"{field}.{_EXTENSIONS[name if field in COLOUR_FIELDS else 'png']}" for field in fields}


def encode(strip: np.ndarray, member: str, png_level: int = 1, quality: int | None = None) -> bytes:
    """The image `strip` as the member `member` stores it (its extension says which format)."""
    if member.endswith(".jpg"):
        from PIL import Image

        output = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(strip)).save(output, "JPEG", quality=quality or DEFAULT_QUALITY,
                                                           subsampling=0)
        return output.getvalue()
    return encode_png(strip, png_level)


def decode(data: bytes, member: str) -> np.ndarray:
    """A member's pixels: uint8 (H, W) gray or (H, W, 3) RGB."""
    return decode_pillow(data) if member.endswith(".jpg") else decode_png(data)
