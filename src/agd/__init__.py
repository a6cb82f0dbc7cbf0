"""AGD: a line-oriented document format with stable block ids.

The public door of the format library; everything here is standard library only.

    >>> from agd import parse, serialize
    >>> doc = parse("@h1 Hello [#intro]\\n")
    >>> doc.blocks[0].id
    'intro'
    >>> serialize(doc)
    '@h1 Hello [#intro]\\n'
"""

from __future__ import annotations

from .errors import (
    AgdError,
    DanglingRef,
    DuplicateId,
    IdNotFound,
    InvalidAst,
    InvalidAttr,
    InvalidEdit,
    InvalidId,
    InvalidTag,
    MissingDependency,
    ParseError,
    UnknownId,
    UnterminatedFence,
)
from .model import Block, Document, Inline

__version__ = "0.3.3"

__all__ = [
    "parse",
    "serialize",
    "canonicalize",
    "Document",
    "Block",
    "Inline",
    "AgdError",
    "ParseError",
    "DuplicateId",
    "InvalidTag",
    "InvalidId",
    "InvalidAttr",
    "UnterminatedFence",
    "DanglingRef",
    "IdNotFound",
    "InvalidEdit",
    "InvalidAst",
    "UnknownId",
    "MissingDependency",
]


def canonicalize(text: str) -> str:
    """`serialize(parse(text))`: the canonical form of AGD text."""
    from .parser import parse
    from .serializer import serialize

    return serialize(parse(text))


def __getattr__(name: str) -> object:
    # `parse` and `serialize` are imported on first use (PEP 562): `import agd.errors`,
    # which every command's error handler does, and the hooks' cached reads should not
    # pay for the parser.
    if name == "parse":
        from .parser import parse

        return parse
    if name == "serialize":
        from .serializer import serialize

        return serialize
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# errors render as `agd.ParseError` etc. in tracebacks, not the private module path
for _name in __all__:
    _obj = globals().get(_name)
    if isinstance(_obj, type) and issubclass(_obj, Exception):
        _obj.__module__ = __name__
del _name, _obj
