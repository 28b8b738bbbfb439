"""Calibration: risk-control rules today; query data, calibrators and the conformal gate next.

Depends on :mod:`kgrecall.tools` and :mod:`kgrecall.kg` only.
"""

from kgrecall.calibration.risk import (
    crc_index,
    hoeffding_bentkus_pvalue,
    ltt_index,
    risk_upper_bound,
    split_conformal_quantile,
)

__all__ = [
    "crc_index",
    "hoeffding_bentkus_pvalue",
    "ltt_index",
    "risk_upper_bound",
    "split_conformal_quantile",
]
