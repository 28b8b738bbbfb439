"""Names the command line needs before any model (or torch) is loaded."""

from typing import Literal

__all__ = ["DEFAULT_MODEL", "SUPPORTED_MODELS", "TrainingLoop"]

#: The model the service uses when none is named (see README: why ULTRA and rules).
DEFAULT_MODEL = "ultra+rules"
#: Models kgrecall trains (PyKEEN names); keys are the normalised names.
SUPPORTED_MODELS: dict[str, str] = {
    "rotate": "RotatE",
    "complex": "ComplEx",
    "transe": "TransE",
    "distmult": "DistMult",
    "tucker": "TuckER",
}
#: PyKEEN's training loops; ``auto`` picks by model (see ``TrainingConfig``).
TrainingLoop = Literal["auto", "lcwa", "slcwa"]
