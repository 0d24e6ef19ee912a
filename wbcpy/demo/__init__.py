"""``wbcpy demo``: a short run of the programming models on the shipped robots
(:mod:`~wbcpy.demo.models`), then Talos balancing and lifting a foot (:mod:`~wbcpy.demo.talos`).
"""

from __future__ import annotations

from .models import DemoResult, run_demo

__all__ = ["DemoResult", "run_demo"]
