"""Built-in lineage facts (docs/functions.md lists them).

Names are the lower-case names the SQL frontend gives calls: the name written for functions
sqlglot does not model, sqlglot's canonical name for those it does (``TRY_PARSE_JSON`` and
``JSON_PARSE`` are both ``parse_json``; ``PARSE_DATE``, ``STRPTIME`` and ``TO_TIMESTAMP(s,
fmt)`` are ``str_to_time``/``str_to_date``).  A built-in sqlglot models and this table does not
list is a plain expression over all of its arguments (exact).
"""

from __future__ import annotations

from ..lineage.kinds import Confidence, Transformation
from .registry import FunctionInfo, FunctionKind

AGGREGATE, WINDOW, GENERATOR = FunctionKind.AGGREGATE.value, FunctionKind.WINDOW.value, FunctionKind.GENERATOR.value

# Aggregates.  sqlglot models the common ones itself; the rest are listed so the SQL frontend
# builds them as Aggregate measures wherever it meets them.
AGGREGATES = (
    "sum", "count", "avg", "min", "max", "any_value", "arbitrary", "approx_distinct", "approx_count_distinct",
    "count_if", "listagg", "string_agg", "median", "mode", "array_agg", "bool_and", "bool_or", "every", "bit_and",
    "bit_or", "bit_xor", "collect_list", "collect_set", "percentile", "percentile_approx", "approx_percentile",
    "approx_quantiles", "kurtosis", "skewness", "product", "first", "last", "min_by", "max_by", "arg_min",
    "arg_max", "arg_min_null", "arg_max_null", "group_concat", "corr", "covar_pop", "covar_samp", "regr_slope",
    "regr_intercept", "hll_count", "sum_distinct", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop",
    "var_samp", "array_union_agg", "object_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
    "xmlagg", "approx_top_k", "hll", "hll_union_agg", "uniq", "uniq_exact", "groupuniqarray", "grouparray",
    "anylast", "argmin", "argmax",
)

# Ranking and offset functions.  The offset of LAG/LEAD/NTH_VALUE and NTILE's bucket count decide
# which row (or bucket) is taken, not what the value is: control inputs, not value inputs.
WINDOWS = (
    FunctionInfo("row_number", kind=WINDOW), FunctionInfo("rank", kind=WINDOW),
    FunctionInfo("dense_rank", kind=WINDOW), FunctionInfo("percent_rank", kind=WINDOW),
    FunctionInfo("cume_dist", kind=WINDOW),
    FunctionInfo("ntile", kind=WINDOW, control_args=("this", 0)),
    FunctionInfo("lag", kind=WINDOW, control_args=("offset", 1)),
    FunctionInfo("lead", kind=WINDOW, control_args=("offset", 1)),
    FunctionInfo("nth_value", kind=WINDOW, control_args=("offset", 1)),
    FunctionInfo("first_value", kind=WINDOW), FunctionInfo("last_value", kind=WINDOW),
)

# Hierarchical queries (CONNECT BY, Snowflake/Oracle): the path of a column's values from the
# root to the row, joined by a separator (a constant that only shapes the text).
HIERARCHY = (
    FunctionInfo("sys_connect_by_path", control_args=(1,)),
)

# Polars expression methods that keep some of their first argument's values, chosen or ordered by
# the others (the Polars frontend names them so): ``col("a").filter(p)``, ``.sort_by(k)``,
# ``.top_k_by(n, k)``.  The others decide which values and in which order: control, not value
# (field trial 47; as a FILTER clause's condition is, specs/aggregate.md rule 9).
SELECTING = (
    FunctionInfo("polars.filter", value_args=(0,)),
    FunctionInfo("polars.sort_by", value_args=(0,)),
    FunctionInfo("polars.top_k_by", value_args=(0,)),
)

# Generators (table functions): the SQL frontend knows the columns each one makes (specs/generator.md).
GENERATORS = (
    "unnest", "explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer", "flatten",
    "generate_series", "generate_subscripts", "range", "json_each", "json_each_text", "jsonb_each",
    "jsonb_each_text", "json_array_elements", "json_array_elements_text", "jsonb_array_elements",
    "jsonb_array_elements_text", "json_object_keys", "jsonb_object_keys", "openjson", "split_to_table",
    "regexp_split_to_table", "string_split", "stack", "json_tuple",
)

# Hashes and masking functions: the output is derived from the input but does not reveal it.
MASKS = (
    "md5", "md5_digest", "md5_hex", "md5_binary", "md5_number_lower64", "md5_number_upper64", "sha", "sha1",
    "sha1_hex", "sha1_binary", "sha2", "sha2_hex", "sha2_binary", "s_h_a2_digest", "sha224", "sha256", "sha384",
    "sha512", "hash", "hash_agg", "farm_fingerprint", "fingerprint", "digest", "hashbytes", "crc32", "xxhash32",
    "xxhash64", "xxh3", "murmur3_hash", "murmurhash3_32", "cityhash64", "siphash64", "sip_hash64", "blake3",
    "mask", "mask_hash", "mask_first_n", "mask_last_n", "mask_show_first_n", "mask_show_last_n", "mask_inner",
    "mask_outer", "redact", "anonymize", "pseudonymize",
)

# Parsing a string in some format into typed values.  A path read from the parsed value is a
# path into the text (``keeps_paths``): ``PARSE_JSON(s):a`` reads ``s``'s key ``a``.
FORMAT_PARSERS = (
    FunctionInfo("parse_json", Transformation.FORMAT_PARSE, keeps_paths=True, doc="parses JSON text"),
    FunctionInfo("try_parse_json", Transformation.FORMAT_PARSE, keeps_paths=True, doc="parses JSON text"),
    FunctionInfo("json_parse", Transformation.FORMAT_PARSE, keeps_paths=True, doc="parses JSON text"),
    FunctionInfo("from_json", Transformation.FORMAT_PARSE, keeps_paths=True, control_args=("expression", 1),
                 doc="parses JSON text with a declared schema"),
    FunctionInfo("from_csv", Transformation.FORMAT_PARSE, keeps_paths=True, control_args=(1,),
                 doc="parses CSV text with a declared schema"),
    FunctionInfo("from_xml", Transformation.FORMAT_PARSE, keeps_paths=True, control_args=(1,),
                 doc="parses XML text with a declared schema"),
    FunctionInfo("parse_xml", Transformation.FORMAT_PARSE, keeps_paths=True, doc="parses XML text"),
    FunctionInfo("str_to_map", Transformation.FORMAT_PARSE, keeps_paths=True, doc="parses key/value text"),
    FunctionInfo("str_to_time", Transformation.FORMAT_PARSE, control_args=("format",),
                 doc="parses a timestamp with a format"),
    FunctionInfo("str_to_date", Transformation.FORMAT_PARSE, control_args=("format",),
                 doc="parses a date with a format"),
    FunctionInfo("try_strptime", Transformation.FORMAT_PARSE, control_args=(1,), doc="parses a timestamp"),
    FunctionInfo("from_iso8601_timestamp", Transformation.FORMAT_PARSE, doc="parses an ISO 8601 timestamp"),
    FunctionInfo("from_iso8601_date", Transformation.FORMAT_PARSE, doc="parses an ISO 8601 date"),
    FunctionInfo("parse", Transformation.FORMAT_PARSE, doc="parses text into a type"),
    FunctionInfo("try_parse", Transformation.FORMAT_PARSE, doc="parses text into a type"),
    FunctionInfo("regexp_extract", Transformation.FORMAT_PARSE, control_args=("expression", 1),
                 doc="extracts a field of text with a regular expression"),
    FunctionInfo("regexp_extract_all", Transformation.FORMAT_PARSE, control_args=("expression", 1),
                 doc="extracts fields of text with a regular expression"),
    FunctionInfo("regexp_substr", Transformation.FORMAT_PARSE, control_args=(1,),
                 doc="extracts a field of text with a regular expression"),
    FunctionInfo("regexp_substr_all", Transformation.FORMAT_PARSE, control_args=(1,),
                 doc="extracts fields of text with a regular expression"),
    FunctionInfo("regexp_match", Transformation.FORMAT_PARSE, control_args=(1,),
                 doc="extracts fields of text with a regular expression"),
    FunctionInfo("regexp_matches", Transformation.FORMAT_PARSE, control_args=(1,),
                 doc="extracts fields of text with a regular expression"),
    FunctionInfo("parse_url", Transformation.FORMAT_PARSE, doc="parses a URL"),
    FunctionInfo("url_extract_host", Transformation.FORMAT_PARSE, doc="parses a URL"),
    FunctionInfo("url_extract_path", Transformation.FORMAT_PARSE, doc="parses a URL"),
    FunctionInfo("url_extract_parameter", Transformation.FORMAT_PARSE, doc="parses a URL"),
)

# Paths into semi-structured data the SQL frontend cannot read as a path (a function it does not
# model, or a path computed at run time): which part is read depends on data whose shape is not
# declared, so the lineage is conservative.
_SEMI_STRUCTURED_DOC = "reads a part of semi-structured data whose shape is not declared"
SEMI_STRUCTURED = (
    "json_extract_path", "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text",
    "json_extract_array", "json_query_array", "json_value_array", "json_extract_string_array",
    "jsonb_path_query", "jsonb_path_query_first", "json_array_element", "xmlget", "get_ignore_case",
    "json_extract_array_element_text", "jsonextract", "jsonextractstring", "visitparamextractstring",
)

# Date and time functions whose unit is a keyword (DAY, MONTH …): the unit decides how the value
# is computed, it is not a value input.  The SQL frontend reads units as constants; the facts
# are recorded for other frontends and for the registry listing.
_UNIT_FUNCTIONS = (
    "date_trunc", "timestamp_trunc", "datetime_trunc", "time_trunc", "datediff", "date_diff", "date_add",
    "date_sub", "timestamp_diff", "timestamp_add", "timestamp_sub", "datetime_diff", "datetime_add",
    "datetime_sub", "time_add", "time_sub", "ts_or_ds_add",
)

NONDETERMINISTIC = (
    "rand", "random", "uuid", "gen_random_uuid", "newid", "now", "current_timestamp", "current_date",
    "current_time", "current_datetime", "localtimestamp", "localtime", "sysdate", "getdate", "getutcdate",
    "systimestamp", "sysdatetime", "uuid_string", "generate_uuid", "random_uuid", "rand_canonical", "randn",
    "uniform", "normal", "seq4", "seq8",
)


def builtin_functions() -> list[FunctionInfo]:
    infos = [FunctionInfo(name, kind=AGGREGATE) for name in AGGREGATES]
    infos += WINDOWS
    infos += HIERARCHY
    infos += SELECTING
    infos += [FunctionInfo(name, Transformation.GENERATOR, kind=GENERATOR) for name in GENERATORS]
    infos += [FunctionInfo(name, Transformation.MASK, doc="masks its input") for name in MASKS]
    infos += FORMAT_PARSERS
    infos += [FunctionInfo(name, Transformation.SEMI_STRUCTURED_ACCESS, Confidence.CONSERVATIVE,
                           doc=_SEMI_STRUCTURED_DOC) for name in SEMI_STRUCTURED]
    infos += [FunctionInfo(name, control_args=("unit",)) for name in _UNIT_FUNCTIONS]
    infos += [FunctionInfo(name, deterministic=False) for name in NONDETERMINISTIC]
    return infos
