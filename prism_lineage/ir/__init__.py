"""The Prism IR: a typed relational plan of semantic targets.

This package imports no frontend library: SQL, dataframe and Substrait frontends lower into
it; lineage rules read it.
"""

from .expressions import (
    AccessKind,
    AggregateCall,
    Call,
    CandidateRef,
    Expr,
    FieldRef,
    FrameBound,
    FrameUnit,
    Literal,
    NestedAccess,
    OuterRef,
    SELECTED_BY,
    SortKey,
    Subquery,
    SubqueryKind,
    WindowCall,
    WindowFrame,
    selected_by,
)
from .generators import GeneratedColumn, GeneratedRole, Generator
from .ids import IdAllocator, column_id, field_id
from .modify import Matched, Modify, WriteAction, WriteClause
from .ordering import ORDER_KEEPING, ordered_by
from .origin import Origin, SourceText
from .relations import (
    Aggregate,
    CteRef,
    Distinct,
    Field,
    Filter,
    Join,
    JoinKind,
    Limit,
    MaskingPolicy,
    Project,
    RecursiveCte,
    RecursiveRef,
    Relation,
    Scan,
    SetKind,
    SetOperation,
    Sort,
    Values,
    Window,
    position_matches,
    stands_for_columns,
)
from .statement import Statement, Uncertainty, WrittenColumn
from .walk import Transformed, transform, walk_relations

__all__ = [name for name in dir() if not name.startswith("_")]
