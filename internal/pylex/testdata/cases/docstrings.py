"""Module doc.

    Indented line.
"""

class C:
    r'''Raw \''' doc.'''
    x = '''a \''' b'''
    def m(self):
        """Doc with "quotes" and \"escapes\"."""
