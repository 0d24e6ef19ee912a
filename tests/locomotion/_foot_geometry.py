"""An independent reading of a foot's collision geometry: the URDF's ``<collision>`` elements parsed with
ElementTree, boxes and spheres in closed form, meshes read with coal's MeshLoader and turned to z-up
axes by the COLLADA ``<up_axis>`` read with ElementTree, all placed with raw Pinocchio kinematics.
Nothing of wbcpy is used."""

from __future__ import annotations

import importlib.metadata
import xml.etree.ElementTree as ET

import coal
import numpy as np
import pinocchio as pin

#: the COLLADA standard's rotations from a file's up axis to z up
UP = {"Y_UP": np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float),
      "X_UP": np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]], float)}  # fmt: skip


def data_root() -> str:
    dist = importlib.metadata.distribution("example-robot-data")
    return str(dist.locate_file("cmeel.prefix/share"))


def _origin(element) -> pin.SE3:
    origin = element.find("origin")
    xyz = [0.0] * 3 if origin is None else [float(x) for x in origin.get("xyz", "0 0 0").split()]
    rpy = [0.0] * 3 if origin is None else [float(x) for x in origin.get("rpy", "0 0 0").split()]
    return pin.SE3(pin.rpy.rpyToMatrix(*rpy), np.array(xyz))


def _mesh_points(filename: str, scale: np.ndarray) -> np.ndarray:
    path = filename.replace("package://", data_root() + "/")
    points = np.array(coal.MeshLoader().load(path).vertices()) * scale
    if path.lower().endswith(".dae"):
        root = ET.parse(path).getroot()
        up = next((e.text.strip() for e in root.iter() if e.tag.endswith("up_axis")), "Z_UP")
        if up in UP:
            points = points @ UP[up].T
    return points


def _shape_points(geometry, down: np.ndarray) -> np.ndarray:
    """Points of a URDF shape (its own axes): a box's corners, a sphere's lowest point along ``down``,
    a mesh's vertices."""
    box, sphere, mesh = geometry.find("box"), geometry.find("sphere"), geometry.find("mesh")
    if box is not None:
        h = 0.5 * np.array([float(x) for x in box.get("size").split()])
        return np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
    if sphere is not None:
        return (float(sphere.get("radius")) * down)[None, :]
    if mesh is not None:
        scale = np.array([float(x) for x in mesh.get("scale", "1 1 1").split()])
        return _mesh_points(mesh.get("filename"), scale)
    raise AssertionError(f"shape not handled by the test: {ET.tostring(geometry)[:80]}")


def foot_points(urdf: str, model: pin.Model, data: pin.Data, frame: str) -> np.ndarray:
    """World points of the collision shapes of every link on the same joint as ``frame`` (data: the
    frame placements of a posture), among which the lowest (world z) form the foot's lowest face."""
    joint = model.frames[model.getFrameId(frame)].parentJoint
    links = {f.name for f in model.frames if f.type == pin.FrameType.BODY and f.parentJoint == joint}
    out = []
    for link in ET.parse(urdf).getroot().iter("link"):
        if link.get("name") not in links:
            continue
        M = data.oMf[model.getFrameId(link.get("name"))]
        for collision in link.findall("collision"):
            G = M * _origin(collision)
            down = G.rotation.T @ np.array([0.0, 0.0, -1.0])
            points = _shape_points(collision.find("geometry"), down)
            out.append(points @ G.rotation.T + G.translation)
    return np.vstack(out)
