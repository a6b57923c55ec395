"""Exploding a map gives its keys (lineage from the whole map) and values (at path attributes[])."""
from frame_tables import baskets

plan = baskets.explode("attributes", names=("attribute", "setting")).select("attribute", "setting")
