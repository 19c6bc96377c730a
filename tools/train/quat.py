"""Quaternion helpers on numpy arrays, layout (..., 4) = (w, x, y, z), unit length.

Rotations follow the right-hand rule (counter-clockwise when looking down the axis)
and act on column vectors: v' = q v q*. Composition mul(a, b) applies b first.
Nothing here allocates beyond numpy temporaries; callers own every array.
"""
import numpy as np


def from_axis_angle(axis, angle):
    """axis: (3,) unit vector, angle: (...) radians -> (..., 4)."""
    angle = np.asarray(angle, dtype=np.float64)
    half = 0.5 * angle
    s = np.sin(half)
    out = np.empty(angle.shape + (4,))
    out[..., 0] = np.cos(half)
    out[..., 1] = axis[0] * s
    out[..., 2] = axis[1] * s
    out[..., 3] = axis[2] * s
    return out


def mul(a, b):
    """Hamilton product a*b (apply b, then a)."""
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ], axis=-1)


def conj(q):
    out = q.copy()
    out[..., 1:] *= -1.0
    return out


def rotate(q, v):
    """Rotate vectors v (..., 3) by q (..., 4)."""
    qv = q[..., 1:]
    w = q[..., 0:1]
    t = 2.0 * np.cross(qv, v)
    return v + w * t + np.cross(qv, t)


def normalize(q):
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def slerp(a, b, t):
    """Shortest-path slerp between unit quaternions a and b, t in [0, 1] (broadcast)."""
    t = np.asarray(t, dtype=np.float64)[..., None]
    d = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(d < 0.0, -b, b)
    d = np.abs(d)
    # Nearly parallel quaternions: lerp avoids dividing by sin(~0).
    lin = d > 0.9995
    theta = np.arccos(np.clip(d, -1.0, 1.0))
    s = np.sin(theta)
    s = np.where(lin, 1.0, s)
    wa = np.where(lin, 1.0 - t, np.sin((1.0 - t) * theta) / s)
    wb = np.where(lin, t, np.sin(t * theta) / s)
    return normalize(wa * a + wb * b)


def to_matrix(q):
    """(..., 4) -> (..., 3, 3) rotation matrices acting on column vectors."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - w * z)
    m[..., 0, 2] = 2 * (x * z + w * y)
    m[..., 1, 0] = 2 * (x * y + w * z)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - w * x)
    m[..., 2, 0] = 2 * (x * z - w * y)
    m[..., 2, 1] = 2 * (y * z + w * x)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def from_yaw(yaw):
    """Rotation about +Y by yaw radians."""
    return from_axis_angle(np.array([0.0, 1.0, 0.0]), yaw)
