x = 1 + \
    2
s = "abc\
def"
t = '''line\
next'''
if (a and
        b):  # comment
    pass

# trailing comment
  # indented comment
