a = r"x\"y" + b'z' + Rb"q" + bR'''m
n''' + F"{x!r:>{w}}" + fR"raw{1}" + u"u"
b = ur"no"
c = rf"""a
{b}
""" + "" + ''
