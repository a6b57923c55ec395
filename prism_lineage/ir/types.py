"""Data types of the IR.

Types are kept as normalised SQL type names (``BIGINT``, ``DECIMAL(7, 2)``, ``VARCHAR``);
``None`` means the type is not known.  The frontends normalise what they read; the IR only
needs a few facts about them (is it numeric, which of two numeric types is wider).
"""

from __future__ import annotations

DataType = str | None

BOOLEAN = "BOOLEAN"
BIGINT = "BIGINT"
DOUBLE = "DOUBLE"
VARCHAR = "VARCHAR"

_NUMERIC_RANK = {
    "TINYINT": 1,
    "SMALLINT": 2,
    "INT": 3,
    "INTEGER": 3,
    "BIGINT": 4,
    "HUGEINT": 5,
    "DECIMAL": 6,
    "NUMERIC": 6,
    "FLOAT": 7,
    "REAL": 7,
    "DOUBLE": 8,
}


def base_name(data_type: DataType) -> str | None:
    """``DECIMAL(7, 2)`` → ``DECIMAL``."""
    if data_type is None:
        return None
    cut = data_type.find("(")
    return data_type if cut < 0 else data_type[:cut]


def is_numeric(data_type: DataType) -> bool:
    return base_name(data_type) in _NUMERIC_RANK


def wider_numeric(left: DataType, right: DataType) -> DataType:
    """The result type of arithmetic over two types, or ``None`` if it cannot be told."""
    left_rank = _NUMERIC_RANK.get(base_name(left) or "")
    right_rank = _NUMERIC_RANK.get(base_name(right) or "")
    if left_rank is None or right_rank is None:
        return None
    return left if left_rank >= right_rank else right
