"""Ingress origins: the client request nodes of an external plan that Prism targets came from.

A plan received from an external client frontend (a Substrait plan today) is lowered into
the IR; each target keeps a link to the node of the client's plan that produced it — its
path in the client plan and the client's own anchor for it — so tools can say "this join came
from ``relations[0].root.input.join`` of plan.json".  The RFC's rule: ingress-origin links
explain protocol provenance and are never lineage by themselves.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IngressOrigin:
    """One node of a client plan and the Prism targets lowered from it.

    ``protocol``: the client plan's format (``substrait``); ``path``: where the node is in the
    client plan (``relations[0].root.input.project``); ``kind``: what the node is
    (``ProjectRel``); ``anchor``: the client's own id for it, when it gave one; ``file``: the
    plan file, when the plan was read from one; ``targets``: ids of the Prism targets
    (relations, fields, expressions) it produced.
    """

    protocol: str
    path: str
    kind: str
    targets: tuple[str, ...]
    anchor: int | None = None
    file: str | None = None

    @property
    def id(self) -> str:
        """The ingress node's own target id: ``ingress:substrait:relations[0].root.input``."""
        return f"ingress:{self.protocol}:{self.path}"
