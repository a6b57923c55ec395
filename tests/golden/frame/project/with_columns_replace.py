"""with_columns(): every column passes; a same-named expression replaces its column in place,
a new one comes last."""
from frame_tables import customers
import prism_lineage.frame.functions as F
from prism_lineage.frame import lit

plan = customers.with_columns(F.upper("name").alias("name"), F.concat("name", lit(" ("), "country", lit(")"))
                              .alias("display"))
