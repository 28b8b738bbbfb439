"""Calibration: synthetic calibration data and risk-control rules; the gate and store next.

Depends on :mod:`kgrecall.tools` and :mod:`kgrecall.kg` only.
"""

from kgrecall.calibration.data import (
    DEFAULT_HIDE_RANGE,
    CalibrationQuery,
    CalibrationSet,
    hide_edges,
    make_calibration_set,
)
from kgrecall.calibration.risk import (
    crc_index,
    hoeffding_bentkus_pvalue,
    ltt_index,
    risk_upper_bound,
    split_conformal_quantile,
)

__all__ = [
    "DEFAULT_HIDE_RANGE",
    "CalibrationQuery",
    "CalibrationSet",
    "crc_index",
    "hide_edges",
    "hoeffding_bentkus_pvalue",
    "ltt_index",
    "make_calibration_set",
    "risk_upper_bound",
    "split_conformal_quantile",
]
