"""Frontends lower user input (SQL, dataframe plans, Substrait) into the Prism IR."""
