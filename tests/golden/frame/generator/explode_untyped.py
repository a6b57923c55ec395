"""Exploding a value whose type is not declared (or JSON): its elements are assumed to come
from it — conservative, with the reason in `uncertain`."""
from frame_tables import baskets

plan = baskets.explode("payload", name="entry", outer=True).select("basket_id", "entry")
