"""Draws the kernelspec logos (logo-32x32.png, logo-64x64.png) without PIL:
a 3x3 array of blue cells with the diagonal fused into one orange kernel.
Run with /usr/bin/python3 share/make_logos.py; the PNGs are committed."""
import struct
import zlib
from pathlib import Path

BLUE = (38, 99, 181)
ORANGE = (243, 135, 33)
SUPERSAMPLE = 4


def colour_at(u, v):
    """Colour (r, g, b, a) of the point (u, v) in the unit square."""
    margin, gap = 0.06, 0.05
    cell = (1 - 2 * margin - 2 * gap) / 3
    # The fused diagonal: a thick band over the three diagonal cells.
    if abs(u - v) < 0.16 and margin < u < 1 - margin and margin < v < 1 - margin:
        return (*ORANGE, 255)
    for i in range(3):
        for j in range(3):
            x0 = margin + i * (cell + gap)
            y0 = margin + j * (cell + gap)
            if x0 <= u < x0 + cell and y0 <= v < y0 + cell:
                return (*BLUE, 255)
    return (0, 0, 0, 0)


def render(size):
    rows = []
    n = SUPERSAMPLE
    for y in range(size):
        row = bytearray([0])  # filter type: none
        for x in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(n):
                for sx in range(n):
                    c = colour_at((x + (sx + 0.5) / n) / size, (y + (sy + 0.5) / n) / size)
                    for k in range(3):
                        acc[k] += c[k] * c[3]
                    acc[3] += c[3]
            a = acc[3] / (n * n)
            rgb = [int(round(acc[k] / acc[3])) if acc[3] else 0 for k in range(3)]
            row += bytes(rgb + [int(round(a))])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(render(size), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "jupyter" / "kernels" / "npcompile"
    for size in (32, 64):
        (out / f"logo-{size}x{size}.png").write_bytes(png(size))
        print(out / f"logo-{size}x{size}.png")
