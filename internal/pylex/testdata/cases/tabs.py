if x:
	if y:
		pass
	else:
	    z = 1
        w = 2
def g():
    return 1
