"""explode(name=, position=): the array stays; the element and its position are new columns.
The position depends on the array's shape: value lineage from the whole array."""
from frame_tables import baskets

plan = baskets.explode("tags", name="tag", position="tag_position").select("basket_id", "tags", "tag", "tag_position")
