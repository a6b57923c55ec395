"""Reading a Spark Connect ``Plan``: binary protobuf or its JSON form, with the protobuf
classes of the ``pyspark-client`` package (the ``[spark]`` extra), imported only here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from .errors import SparkConnectUnavailableError, SparkPlanDecodeError


def proto() -> Any:
    """``pyspark.sql.connect.proto`` (the Connect messages), or a clear error."""
    import warnings

    try:
        with warnings.catch_warnings():
            # PySpark checks its client's dependencies on import and warns about pandas
            # versions; only its protobuf classes are used here.
            warnings.simplefilter("ignore", FutureWarning)
            from pyspark.sql.connect.proto import base_pb2  # noqa: F401
            from pyspark.sql.connect import proto as module
    except ImportError as error:
        raise SparkConnectUnavailableError(
            f"the Spark Connect protobuf classes are not installed ({error}): install prism-lineage[spark] "
            "(pyspark-client>=4.2,<4.3) to read Spark Connect plans"
        ) from None
    return module


def read_file(path: str | Path) -> bytes:
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"Spark Connect plan file not found: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a Spark Connect plan file") from None
    except OSError as error:
        raise InputError(f"cannot read Spark Connect plan file {path}: {error.strerror or error}") from None


def decode(data: bytes | str, source: str) -> Any:
    """A ``spark.connect.Plan`` from binary protobuf, or from its JSON form (text starting with
    ``{``); a ``Relation`` alone is taken as the plan's root."""
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError

    module = proto()
    if isinstance(data, bytes) and data.lstrip()[:1] == b"{":
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise SparkPlanDecodeError(f"{source} looks like JSON but is not UTF-8 text: {error.reason}") from None
    if not data:
        raise SparkPlanDecodeError(f"{source} is empty: expected a Spark Connect plan (binary protobuf or JSON)")
    plan = module.Plan()
    if isinstance(data, str):
        try:
            json_format.Parse(data, plan)
        except json_format.ParseError as error:
            try:  # a Relation on its own
                relation = module.Relation()
                json_format.Parse(data, relation)
            except json_format.ParseError:
                raise SparkPlanDecodeError(f"{source} is not a Spark Connect plan in JSON: {error}") from None
            plan.root.CopyFrom(relation)
        return plan
    try:
        plan.ParseFromString(data)
    except DecodeError as error:
        raise SparkPlanDecodeError(f"{source} is not a Spark Connect plan (binary protobuf or JSON): {error}") from None
    if plan.WhichOneof("op_type") is None:
        raise SparkPlanDecodeError(f"{source} is not a Spark Connect plan: it holds neither a root relation nor a "
                                   "command")
    return plan
