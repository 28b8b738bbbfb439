"""Query trees, synthetic calibration data, calibrators and the conformal gate.

Filled by the calibration issue; depends on :mod:`kgrecall.tools` and :mod:`kgrecall.kg`.
"""

__all__: list[str] = []
