"""Exploding JSON (or a value whose type is not declared) reads it as an array: each element
comes from it, exact — as the SQL frontend's UNNEST has it."""
from frame_tables import baskets

plan = baskets.explode("payload", name="entry", outer=True).select("basket_id", "entry")
