"""Plane geometry."""
from geo.shapes import Square, area

__all__ = ["Square", "area"]
