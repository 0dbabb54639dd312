import os; import sys as s; from . import (a,
    b as c)
from ..pkg.mod import x
