"""AGD: a line-oriented document format with stable block ids.

The public door of the format library; everything here is standard library only.
"""

__version__ = "0.3.3"
