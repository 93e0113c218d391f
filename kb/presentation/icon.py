"""The favicon: a card on the badge's dark blue, drawn once as shapes, written as SVG and as ICO.

The same shape list gives the SVG (`favicon_svg`) and the pixels of the ICO's PNG images
(`favicon_ico`: 16 and 32 px, each pixel sampled 4×4 for smooth edges), so both always agree.
Pure code: no image library, no files.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from functools import cache
from urllib.parse import quote

VIEWBOX = 32
ICO_SIZES: tuple[int, ...] = (16, 32)
_SAMPLES = 4


@dataclass(frozen=True)
class RoundedRect:
    x: float
    y: float
    w: float
    h: float
    r: float
    color: str

    def contains(self, px: float, py: float) -> bool:
        # the distance from the point to the rectangle shrunk by r, at most r
        dx = max(self.x + self.r - px, 0.0, px - (self.x + self.w - self.r))
        dy = max(self.y + self.r - py, 0.0, py - (self.y + self.h - self.r))
        return dx * dx + dy * dy <= self.r * self.r

    def svg(self) -> str:
        return (
            f'<rect x="{self.x:g}" y="{self.y:g}" width="{self.w:g}" height="{self.h:g}" '
            f'rx="{self.r:g}" fill="{self.color}"/>'
        )


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    color: str

    def contains(self, px: float, py: float) -> bool:
        return (px - self.cx) ** 2 + (py - self.cy) ** 2 <= self.r * self.r

    def svg(self) -> str:
        return f'<circle cx="{self.cx:g}" cy="{self.cy:g}" r="{self.r:g}" fill="{self.color}"/>'


BLUE = "#223344"
GOLD = "#f2c14e"
# Back to front: the tile, the card, its art box with a sun, two lines of card text.
SHAPES: tuple[RoundedRect | Circle, ...] = (
    RoundedRect(0, 0, 32, 32, 7, BLUE),
    RoundedRect(8, 4, 16, 24, 2.5, GOLD),
    RoundedRect(10.5, 7, 11, 10, 1, BLUE),
    Circle(16, 12, 3, GOLD),
    RoundedRect(10.5, 19.5, 11, 2, 1, BLUE),
    RoundedRect(10.5, 23, 7, 1.5, 0.75, BLUE),
)


def favicon_svg() -> str:
    body = "".join(shape.svg() for shape in SHAPES)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEWBOX} {VIEWBOX}">{body}</svg>\n'
    )


def favicon_data_uri() -> str:
    """The SVG as a `data:` URI, for a page that must not load anything."""
    return "data:image/svg+xml," + quote(favicon_svg().strip(), safe=" =:/\"',.")


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def pixels(size: int) -> list[list[tuple[int, int, int, int]]]:
    """RGBA rows of the icon at `size` px: each pixel the mean of its 4×4 samples."""
    scale = VIEWBOX / size
    colors = [_rgb(shape.color) for shape in SHAPES]
    rows = []
    for y in range(size):
        row = []
        for x in range(size):
            r = g = b = a = 0
            for sy in range(_SAMPLES):
                for sx in range(_SAMPLES):
                    px = (x + (sx + 0.5) / _SAMPLES) * scale
                    py = (y + (sy + 0.5) / _SAMPLES) * scale
                    top = None  # the front-most shape under the sample
                    for shape, color in zip(SHAPES, colors, strict=True):
                        if shape.contains(px, py):
                            top = color
                    if top is not None:
                        r, g, b, a = r + top[0], g + top[1], b + top[2], a + 1
            n = _SAMPLES * _SAMPLES
            row.append((r // a, g // a, b // a, 255 * a // n) if a else (0, 0, 0, 0))
        rows.append(row)
    return rows


def png(size: int) -> bytes:
    """The icon as an RGBA PNG of `size`×`size` px."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(
        b"\x00" + bytes(channel for pixel in row for channel in pixel) for row in pixels(size)
    )
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


@cache
def favicon_ico() -> bytes:
    """An ICO holding the icon as PNG images of ICO_SIZES (built once)."""
    images = [png(size) for size in ICO_SIZES]
    out = struct.pack("<HHH", 0, 1, len(images))
    offset = 6 + 16 * len(images)
    for size, image in zip(ICO_SIZES, images, strict=True):
        out += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(image), offset)
        offset += len(image)
    return out + b"".join(images)
