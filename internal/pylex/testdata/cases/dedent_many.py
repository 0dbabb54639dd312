if a:
    if b:
        if c:
            pass
x = [
1,
  2]
