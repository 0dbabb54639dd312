def feature(x):
    return x + 1
