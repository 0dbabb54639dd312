def metres(x):
    return float(x)
