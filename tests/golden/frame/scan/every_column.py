"""A table read as is: every column is its own base column (value, identity, exact)."""
from frame_tables import customers

plan = customers
