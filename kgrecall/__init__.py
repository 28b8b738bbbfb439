"""kgrecall: recall-calibrated answers over incomplete biomedical knowledge graphs."""

__version__ = "0.1.0"

__all__ = ["__version__"]
