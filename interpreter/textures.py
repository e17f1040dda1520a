"""Texture fetches: what `tex1D`/`tex2D`/`tex3D`/`tex*Layered`/`texCubemap` return for each
thread's coordinates, as CUDA's texture units compute it.

A Texture is memory (bytes, read when the fetch runs, so what kernels and copies wrote is
seen) laid out as width x height x depth elements with a row pitch and a slice pitch, its
channel format, and how it is sampled: normalized or texel coordinates, an address mode
per axis (wrap, clamp, mirror, border), point or linear filtering (with the 8-bit
fraction of CUDA's hardware), and element or normalized-float reads. A layered texture's
layers, and a cubemap's faces, are its slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3  # cudaTextureAddressMode
POINT, LINEAR = 0, 1  # cudaTextureFilterMode
ELEMENT, NORMALIZED_FLOAT = 0, 1  # cudaTextureReadMode
SIGNED, UNSIGNED, FLOAT = 0, 1, 2  # cudaChannelFormatKind
LAYERED, CUBEMAP = 1, 4  # cudaArrayLayered, cudaArrayCubemap
CUBEMAP_DIMS = 4  # the fetch's dimension code of texCubemap (x, y, z is a direction)


@dataclass
class Texture:
    data: np.ndarray  # uint8: the memory, from its first element
    width: int
    height: int = 1
    depth: int = 1
    pitch: int = 0  # bytes from a row to the next
    slice: int = 0  # bytes from a slice to the next
    bits: tuple = (32, 0, 0, 0)  # of each channel
    kind: int = FLOAT
    flags: int = 0
    address: tuple = (CLAMP, CLAMP, CLAMP)
    filter: int = POINT
    read: int = ELEMENT
    normalized: bool = False
    border: tuple = (0.0, 0.0, 0.0, 0.0)

    @classmethod
    def of_array(cls, array: np.ndarray) -> Texture:
        """An array given for a texture: its last axis is x; each element one channel; texel
        coordinates, clamped, point-sampled."""
        shape = (*(1,) * (3 - min(array.ndim, 3)), *array.shape[-3:])
        data = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        kind = FLOAT if array.dtype.kind == "f" else SIGNED if array.dtype.kind == "i" else UNSIGNED
        item = array.dtype.itemsize
        return cls(data, shape[2], shape[1], shape[0], shape[2] * item, shape[2] * shape[1] * item,
                   (item * 8, 0, 0, 0), kind)

    @property
    def element(self) -> int:
        return sum(self.bits) // 8

    def fetch(self, dims: int, coordinates: list[np.ndarray], size: int) -> np.ndarray:
        """The `size` bytes each thread gets for its coordinates (x, y, z; the last of them
        is the layer of a layered texture, a direction for a cubemap)."""
        count = len(coordinates[0])
        if dims == CUBEMAP_DIMS:
            face, u, v = _cube_face(*coordinates)
            spatial, layer = [u * self.width, v * self.height], face
        else:
            layered = bool(self.flags & LAYERED)
            axes = dims - layered
            spatial = [coordinates[axis] * (self.extent(axis) if self.normalized else 1.0) for axis in range(axes)]
            layer = (np.clip(np.rint(coordinates[axes]), 0, self.depth - 1).astype(np.int64) if layered
                     else np.zeros(count, dtype=np.int64))
        floats = self.read == NORMALIZED_FLOAT or self.kind == FLOAT and (self.filter == LINEAR or 16 in self.bits)
        if floats:  # half floats are read as floats, and filtering gives floats
            values = self._filtered(spatial, layer) if self.filter == LINEAR else \
                self._values(*self._point(spatial, layer))
            raw = np.ascontiguousarray(values.astype(np.float32)).view(np.uint8)
        else:
            offsets, outside = self._point(spatial, layer)
            raw = self._bytes(offsets, outside)
        result = np.zeros((count, size), dtype=np.uint8)
        width = min(size, raw.shape[1])
        result[:, :width] = raw[:, :width]
        return result

    def extent(self, axis: int) -> int:
        return (self.width, self.height, self.depth)[axis]

    # -- addressing

    def _texel(self, axis: int, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the in-range index, whether it is outside: a border texel) of texel `index`."""
        extent = self.extent(axis)
        mode = self.address[axis] if self.normalized else (BORDER if self.address[axis] == BORDER else CLAMP)
        if self.flags & CUBEMAP:  # a face's edge is clamped (no seamless filtering across faces)
            mode = CLAMP
        if mode == WRAP:
            return np.mod(index, extent), np.zeros(len(index), dtype=bool)
        if mode == MIRROR:
            folded = np.mod(index, 2 * extent)
            return np.where(folded < extent, folded, 2 * extent - 1 - folded), np.zeros(len(index), dtype=bool)
        outside = (index < 0) | (index >= extent) if mode == BORDER else np.zeros(len(index), dtype=bool)
        return np.clip(index, 0, extent - 1), outside

    def _offsets(self, indices: list[np.ndarray], layer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(byte offset, outside) of the texels at integer `indices` (x, y, z) in `layer`."""
        offset = layer * self.slice
        outside = np.zeros(len(layer), dtype=bool)
        for axis, index in enumerate(indices):
            position, off = self._texel(axis, index)
            offset = offset + position * (self.element, self.pitch, self.slice)[axis]
            outside |= off
        return offset, outside

    def _point(self, spatial: list[np.ndarray], layer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._offsets([np.floor(s).astype(np.int64) for s in spatial], layer)

    # -- reading

    def _bytes(self, offsets: np.ndarray, outside: np.ndarray) -> np.ndarray:
        """The element bytes at each offset (zeros for a border texel)."""
        offsets = np.clip(offsets, 0, max(len(self.data) - self.element, 0))
        raw = self.data[offsets[:, None] + np.arange(self.element)]
        raw[outside] = 0
        return raw

    def _values(self, offsets: np.ndarray, outside: np.ndarray) -> np.ndarray:
        """Each channel of the elements at `offsets` as float64 (normalized for a
        normalized-float read of integers; the border color for a border texel)."""
        raw = self._bytes(offsets, outside)
        channels, start = [], 0
        for bits in self.bits:
            if bits == 0:
                continue
            width = bits // 8
            dtype = np.dtype(("f" if self.kind == FLOAT else "i" if self.kind == SIGNED else "u") + str(width))
            value = np.ascontiguousarray(raw[:, start : start + width]).view(dtype).reshape(-1).astype(np.float64)
            if self.read == NORMALIZED_FLOAT and self.kind != FLOAT and bits <= 16:
                scale = float(2 ** (bits - 1) - 1 if self.kind == SIGNED else 2**bits - 1)
                value = np.maximum(value / scale, -1.0)
            channels.append(np.where(outside, self.border[len(channels)], value))
            start += width
        return np.stack(channels, axis=1)

    def _filtered(self, spatial: list[np.ndarray], layer: np.ndarray) -> np.ndarray:
        """Linear filtering: the weighted sum of the 2, 4 or 8 texels around each point."""
        below, fractions = [], []
        for s in spatial:
            shifted = s - 0.5
            low = np.floor(shifted)
            below.append(low.astype(np.int64))
            fractions.append(np.rint((shifted - low) * 256.0) / 256.0)  # CUDA's 8-bit fraction
        total = 0.0
        for corner in range(1 << len(spatial)):
            weight = 1.0
            indices = []
            for axis in range(len(spatial)):
                high = corner >> axis & 1
                indices.append(below[axis] + high)
                weight = weight * (fractions[axis] if high else 1.0 - fractions[axis])
            total = total + self._values(*self._offsets(indices, layer)) * np.asarray(weight)[:, None]
        return total


def _cube_face(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face, s, t) of each direction, s and t normalized to [0, 1], by the CUDA Programming
    Guide's cubemap table: the face is the major axis and its sign."""
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    on_x = (ax >= ay) & (ax >= az)
    on_y = ~on_x & (ay >= az)
    major = np.where(on_x, ax, np.where(on_y, ay, az))
    face = np.where(on_x, np.where(x >= 0, 0, 1), np.where(on_y, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    s = np.where(on_x, np.where(x >= 0, -z, z), np.where(on_y, x, np.where(z >= 0, x, -x)))
    t = np.where(on_x, -y, np.where(on_y, np.where(y >= 0, z, -z), -y))
    major = np.where(major == 0, 1.0, major)
    return face.astype(np.int64), (s / major + 1.0) / 2.0, (t / major + 1.0) / 2.0
