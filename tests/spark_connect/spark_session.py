"""A PySpark Connect session that never connects: it builds DataFrames, whose plans
(``df._plan.plan(client)``) are the Spark Connect ``Relation`` messages a client would send.

Building a plan needs no server, except that PySpark asks the server whether to record call
sites (``spark.python.sql.dataFrameDebugging.enabled``) the first time a column is made: the
answer is given here (yes), so expressions carry the user's call site like a real client's.
"""

from __future__ import annotations

import warnings
from functools import lru_cache


@lru_cache(maxsize=1)
def session():
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    import pyspark.errors.utils as error_utils
    from pyspark.sql.connect.session import SparkSession

    error_utils._enable_debugging_cache = True  # what the server would answer; no RPC
    spark = SparkSession.builder.remote("sc://localhost:1").getOrCreate()
    # Nothing here may reach for a server: a call that does fails at once instead of retrying.
    spark.client.set_retry_policies([])
    return spark


def sql_frame(query: str):
    """``spark.sql(query)`` as a DataFrame over a ``SQL`` relation (``spark.sql`` itself runs
    the query on the server at once)."""
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.plan import SQL

    return DataFrame(SQL(query), session())


def plan_of(frame):
    """The Spark Connect ``Plan`` of a DataFrame, as its client would send it."""
    from pyspark.sql.connect import proto

    return proto.Plan(root=frame._plan.plan(session().client))
