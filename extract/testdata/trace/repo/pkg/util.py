def helper(x):
    return x + 1


def twice(x):
    return 2 * x
