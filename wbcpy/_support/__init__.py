"""Internal helpers shared by every layer (no public API): input validation
(:mod:`~wbcpy._support.validation`), the one-thread guard (:mod:`~wbcpy._support.exclusive`), safe YAML
reading (:mod:`~wbcpy._support.yaml_files`) and output files written in a forked process
(:mod:`~wbcpy._support.file_writers`). They import nothing of wbcpy but :mod:`wbcpy.errors`.
"""

from __future__ import annotations
