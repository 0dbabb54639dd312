module example.com/l2

go 1.22
