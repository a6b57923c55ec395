"""The lineage explorer as a web page, and its JSON API (``prism-lineage serve``).

* ``answers.py`` — the API's answers: the store's read path (``control/reading.py``), rendered
  as the CLI's ``-o json`` byte for byte; refusals with an HTTP status;
* ``auth.py`` — which credential a request is (``--as``, a login, an API token);
* ``syncing.py`` — ``--project``: sync when the checkout's revision changes;
* ``app.py`` — the Starlette application: routes, pages (``templates/``), ``static/`` (the
  explorer's script and styles, and ELK, the layout library, vendored with its licence);
* ``main.py`` — putting one server together.

docs/explorer.md describes the pages and the API; specs/explorer.md holds the rules.
"""
