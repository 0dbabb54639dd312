n = [0, 00, 0_0, 1_000, 0x_ff, 0XdeadBEEF, 0o17, 0b1010, 1.5, .5, 5., 1e10, 1E-5, 1.5e+3, 3j, 1.5J, 1e5j, 0777, 1_, 1__2, 0x, 1if 1else 2]
m = x.real + 1 .real
