x = 1 $ 2
y = a ? b
z = `q`
w = 1 ! 2
