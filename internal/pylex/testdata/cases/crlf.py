def f():
    x = (1,
         2)
    s = "a\
b"

    return x \
        + 1
# end
