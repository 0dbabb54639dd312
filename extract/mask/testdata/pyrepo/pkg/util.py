def fmt_a(x):
    return "a%s" % x


def fmt_b(x):
    return "b%s" % x


def fmt_c(x):
    return "c%s" % x
